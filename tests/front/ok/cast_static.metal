#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = static_cast<int>(out[tid]);
  uint u = static_cast<uint>(i);
  out[tid] = static_cast<float>(u);
}
