// vector_add.metal — the smallest useful kernel: out = a + b over n elements, with the
// bounds check that makes any grid size safe.
//
//   enigma run examples/vector_add.metal --grid 1000 --threads 256 \
//       a=@a.npy b=@b.npy out=zeros:1000 n=1000 -o out=out.npy
#include <metal_stdlib>
using namespace metal;

kernel void vector_add(device const float* a [[buffer(0)]],
                       device const float* b [[buffer(1)]],
                       device float* out [[buffer(2)]],
                       constant uint& n [[buffer(3)]],
                       uint tid [[thread_position_in_grid]])
{
    if (tid >= n) return;
    out[tid] = a[tid] + b[tid];
}
