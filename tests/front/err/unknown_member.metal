#include <metal_stdlib>
using namespace metal;
struct S { float a; };
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  S s = {1.0f};
  out[tid] = s.b;
}
