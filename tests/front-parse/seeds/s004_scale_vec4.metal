// seed 004, Pattern B: one thread per vector
#include <metal_stdlib>
using namespace metal;

kernel void scale_vec4(
device half4* data [[buffer(0)]],
constant float& factor [[buffer(1)]],
uint tid [[thread_position_in_grid]]
) {
half4 v = data[tid];
data[tid] = half4(float4(v) * factor);
}
