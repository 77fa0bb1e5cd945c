#include <metal_stdlib>
using namespace metal;
template <typename T> T conv(float x) { return T(x); }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = conv<int>(2.5f);
  half h = conv<half>(1.0f);
  out[tid] = float(i) + float(h);
}
