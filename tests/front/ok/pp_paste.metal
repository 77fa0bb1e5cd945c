#include <metal_stdlib>
using namespace metal;
#define FIELD(n) value_##n
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float FIELD(a) = 1.0f;
  float FIELD(b) = 2.0f;
  out[tid] = value_a + value_b;
}
