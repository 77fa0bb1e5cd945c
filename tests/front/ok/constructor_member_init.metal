#include <metal_stdlib>
using namespace metal;
struct P { float x; P(float v) : x(v) {} };
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  P p(2.0f);
  out[tid] = p.x;
}
