#include <metal_stdlib>
using namespace metal;
template <int N> float sum_n(device const float* p) { float s = 0.0f; for (int i = 0; i < N; i++) s += p[i]; return s; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = sum_n<4>(out);
}
