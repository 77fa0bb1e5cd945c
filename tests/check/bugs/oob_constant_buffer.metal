// A constant-space coefficient table of 16 entries indexed by the thread position of 64.
// run: --grid 64 --threads 32 coeffs=rand:float32:16 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void weights(constant float *coeffs [[buffer(0)]],
                    device float *out [[buffer(1)]],
                    uint gid [[thread_position_in_grid]])
{
    out[gid] = coeffs[gid] * 2.0f; // expect: out-of-bounds
}
