// Reads [[threadgroup(0)]] memory before anything was stored there.
// run: --threadgroups 2 --threads 32 --tgmem 0=128 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void stale(device int *out [[buffer(0)]],
                  threadgroup int *scratch [[threadgroup(0)]],
                  uint gid [[thread_position_in_grid]],
                  uint lid [[thread_position_in_threadgroup]])
{
    int previous = scratch[lid]; // expect: uninitialized-read
    scratch[lid] = previous + int(gid);
    out[gid] = scratch[lid];
}
