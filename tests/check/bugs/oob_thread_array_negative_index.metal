// A thread array indexed by a parameter that is -1 (MLX's layer_norm reads and writes its
// thread array at a negative index in some configurations): without the check each
// thread's store lands in its neighbour's copy of the array.
// run: --grid 64 --threads 32 x=rand:float32:64 out=zeros:64 j=-1
#include <metal_stdlib>
using namespace metal;

kernel void scale4(device const float *x [[buffer(0)]],
                   device float *out [[buffer(1)]],
                   constant int &j [[buffer(2)]],
                   uint gid [[thread_position_in_grid]])
{
    float a[4] = {x[gid], 2.0f, 3.0f, 4.0f};
    a[j] = 7.0f; // expect: out-of-bounds
    out[gid] = a[0] + a[1] + a[2] + a[3] + a[j + 4];
}
