#include <metal_stdlib>
using namespace metal;
#define F(a, b) a + b
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = F(1.0f);
}
