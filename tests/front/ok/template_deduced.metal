#include <metal_stdlib>
using namespace metal;
template <typename T> T square(T x) { return x * x; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = square(3);
  float f = square(1.5f);
  out[tid] = f + float(i);
}
