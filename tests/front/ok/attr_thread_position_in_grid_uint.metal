#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint v [[thread_position_in_grid]]) {
  out[0] = float(v);
}
