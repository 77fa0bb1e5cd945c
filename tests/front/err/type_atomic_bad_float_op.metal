#include <metal_stdlib>
using namespace metal;
kernel void k(device atomic_float* a [[buffer(0)]]) {
  atomic_fetch_max_explicit(a, 1.0f, memory_order_relaxed);
}
