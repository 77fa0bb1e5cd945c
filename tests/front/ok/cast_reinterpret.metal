#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], device uint* raw [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  device float* f = reinterpret_cast<device float*>(raw);
  out[tid] = f[tid];
}
