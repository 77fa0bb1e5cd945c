#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint3 v [[dispatch_threads_per_threadgroup]]) {
  out[0] = float(v.z);
}
