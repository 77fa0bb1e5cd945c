// A streaming kernel: y = 2x, one element per thread. Nothing to compute, so its speed is
// how well the runtime hands threadgroups to workers: with small threadgroups, how many
// run per second and whether each worker reads memory in one stream.
#include <metal_stdlib>
using namespace metal;

kernel void scale(device const float *x [[buffer(0)]],
                  device float *y [[buffer(1)]],
                  uint gid [[thread_position_in_grid]])
{
    y[gid] = x[gid] * 2.0f;
}
