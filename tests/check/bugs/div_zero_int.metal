// Integer division by a per-thread value that is zero for every seventh thread.
// run: --grid 64 --threads 32 a=rand:int32:64 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void bucket(device const int *a [[buffer(0)]],
                   device int *out [[buffer(1)]],
                   uint gid [[thread_position_in_grid]])
{
    int width = int(gid % 7);
    out[gid] = a[gid] / width; // expect: division-by-zero
}
