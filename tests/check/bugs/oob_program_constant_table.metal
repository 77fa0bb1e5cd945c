// A program-scope constant table of 4 weights indexed by a value that reaches 7.
// run: --grid 64 --threads 32 out=zeros:64
#include <metal_stdlib>
using namespace metal;

constant float weights[4] = {0.1f, 0.2f, 0.3f, 0.4f};

kernel void weigh(device float *out [[buffer(0)]],
                  uint gid [[thread_position_in_grid]])
{
    out[gid] = weights[gid % 8]; // expect: out-of-bounds
}
