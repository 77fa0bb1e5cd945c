// Metal's #pragma unroll takes an integral constant expression, here a template parameter
#include <metal_stdlib>
using namespace metal;
template <int chunks>
kernel void sum_chunks(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
                       uint tid [[thread_position_in_grid]]) {
  float s = 0.0f;
#pragma unroll(chunks)
  for (int i = 0; i < chunks; ++i) { s += in[tid * chunks + i]; }
#pragma unroll(2 * (chunks))
  for (int i = 0; i < 2; ++i) { s += 1.0f; }
  out[tid] = s;
}
template [[host_name("sum4")]] kernel void sum_chunks<4>(device const float*, device float*, uint);
