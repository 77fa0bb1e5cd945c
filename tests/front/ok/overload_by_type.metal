#include <metal_stdlib>
using namespace metal;
float pick(float x) { return x; }
float pick(int x) { return float(x) * 10.0f; }
float pick(float2 v) { return v.x + v.y; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = pick(1.0f) + pick(2) + pick(float2(1.0f, 2.0f));
}
