// Component-wise integer division of int2 vectors where some y components are zero.
// run: --grid 32 --threads 32 a=rand:int32:64 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void ratio(device const int2 *a [[buffer(0)]],
                  device int2 *out [[buffer(1)]],
                  uint gid [[thread_position_in_grid]])
{
    int2 d = int2(1, int(gid & 3u));
    out[gid] = a[gid] / d; // expect: division-by-zero
}
