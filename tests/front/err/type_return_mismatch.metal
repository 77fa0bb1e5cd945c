#include <metal_stdlib>
using namespace metal;
struct S { float a; };
float f() { S s = {1.0f}; return s; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = f();
}
