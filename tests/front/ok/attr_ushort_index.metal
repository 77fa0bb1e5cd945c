#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], ushort lane [[thread_index_in_simdgroup]], ushort sg [[simdgroup_index_in_threadgroup]]) {
  out[sg * 32 + lane] = 1.0f;
}
