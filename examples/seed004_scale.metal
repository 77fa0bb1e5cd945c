// seed004_scale.metal — seed 004's element-wise kernels: "Pattern A" (one thread per
// element), "Pattern B" (one thread per half4) and "Pitfall 3" (a bounds check that
// returns early). Three kernels in one file: pick one with -k.
//
//   enigma run examples/seed004_scale.metal -k safe_scale --grid 1000 --threads 256 \
//       data=@h.npy count=1000 -o data=out.npy
#include <metal_stdlib>
using namespace metal;

kernel void scale(
    device half* data [[buffer(0)]],
    constant float& factor [[buffer(1)]],
    uint tid [[thread_position_in_grid]]
) {
    data[tid] = half(float(data[tid]) * factor);
}

kernel void scale_vec4(
    device half4* data [[buffer(0)]],
    constant float& factor [[buffer(1)]],
    uint tid [[thread_position_in_grid]]
) {
    half4 v = data[tid];
    data[tid] = half4(float4(v) * factor);
}

kernel void safe_scale(
    device half* data [[buffer(0)]],
    constant uint& count [[buffer(1)]],
    uint tid [[thread_position_in_grid]]
) {
    if (tid >= count) return; // Bounds check!
    data[tid] = data[tid] * 2.0h;
}
