#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  auto f = [](float x) { return x * 2.0f; };
  out[tid] = f(1.0f);
}
