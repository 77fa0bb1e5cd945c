#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint v [[simdgroup_index_in_threadgroup]]) {
  out[0] = float(v);
}
