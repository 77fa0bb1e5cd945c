#include <metal_stdlib>
using namespace metal;
struct S { float a; };
struct S { int b; };
constant int N = 1;
constant int N = 2;
void f(int a) { int a = 2; }
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float x = 1.0f;
    float x = 2.0f;
    { float x = 3.0f; out[0] = x; }
    for (int i = 0; i < 2; ++i) { int i2 = i; }
    out[tid] = x;
}
