#include <metal_stdlib>
using namespace metal;
template <typename T, int N> T scaled(T x) { return x * T(N); }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 v = scaled<float4, 3>(float4(1.0f));
  out[tid] = v.x;
}
