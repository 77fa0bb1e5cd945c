#include <metal_stdlib>
using namespace metal;
[[max_total_threads_per_threadgroup(2048)]]
kernel void k(device float* a [[buffer(0)]]) {
  a[0] = 1.0f;
}
