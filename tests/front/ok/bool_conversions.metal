#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = int(tid);
  if (i) out[tid] = 1.0f;
  bool b = out[tid];
  out[tid] = b ? 2.0f : 3.0f;
}
