#include <metal_stdlib>
using namespace metal;
// an array parameter is a pointer to the first element: writes reach the caller
void fill(float a[4], float v) { for (int i = 0; i < 4; ++i) a[i] = v; }
float sum_tg(threadgroup float t[8]) { return t[0] + t[7]; }
kernel void k(device float *out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]]) {
  threadgroup float tile[8];
  float arr[4];
  fill(arr, 2.0f);
  tile[lid] = arr[3];
  out[lid] = sum_tg(tile);
}
