#include <metal_stdlib>
using namespace metal;
struct S { int a; };
float f(float x) { return x; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  S s = {1};
  out[tid] = f(s);
}
