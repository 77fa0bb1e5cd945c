// An array of structs read one past its end by the last thread.
// run: --grid 32 --threads 32 particles=rand:float32:64 out=zeros:32
#include <metal_stdlib>
using namespace metal;

struct Particle { float x; float v; };

kernel void velocity(device const Particle *particles [[buffer(0)]],
                     device float *out [[buffer(1)]],
                     uint gid [[thread_position_in_grid]])
{
    out[gid] = particles[gid + 1].v - particles[gid].v; // expect: out-of-bounds
}
