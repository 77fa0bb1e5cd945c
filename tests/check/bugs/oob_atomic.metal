// A histogram whose bin index is not clamped: values up to 99 into 64 bins.
// run: --grid 256 --threads 64 values=rand:uint32:256:0:100 bins=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void histogram(device const uint *values [[buffer(0)]],
                      device atomic_uint *bins [[buffer(1)]],
                      uint gid [[thread_position_in_grid]])
{
    atomic_fetch_add_explicit(&bins[values[gid]], 1u, memory_order_relaxed); // expect: out-of-bounds
}
