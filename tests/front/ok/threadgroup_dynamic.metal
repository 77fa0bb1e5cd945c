#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], threadgroup float* t0 [[threadgroup(0)]], threadgroup int* t1 [[threadgroup(1)]], uint lid [[thread_position_in_threadgroup]]) {
  t0[lid] = 1.0f;
  t1[lid] = 2;
  out[lid] = t0[lid] + float(t1[lid]);
}
