#include <metal_stdlib>
using namespace metal;
struct S { float x; float get() { return x; } };
union U { int i; float f; };
struct B { int bits : 3; };
float operator+(S a, S b) { return a.x + b.x; }
template <typename T> struct Box { T v; };
kernel void k(device float *out [[buffer(0)]]) {
    out[0] = 0.0f;
}
