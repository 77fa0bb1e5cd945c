#include <metal_stdlib>
using namespace metal;
kernel void k(device atomic_int* a [[buffer(0)]]) {
  atomic_fetch_add_explicit(a, 1, memory_order_seq_cst);
}
