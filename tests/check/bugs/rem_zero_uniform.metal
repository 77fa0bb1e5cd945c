// A remainder by a parameter that the host set to zero.
// run: --grid 64 --threads 64 a=rand:uint32:64:1:1000 out=zeros:64 period=0
#include <metal_stdlib>
using namespace metal;

kernel void wrap(device const uint *a [[buffer(0)]],
                 device uint *out [[buffer(1)]],
                 constant uint &period [[buffer(2)]],
                 uint gid [[thread_position_in_grid]])
{
    out[gid] = a[gid] % period; // expect: division-by-zero
}
