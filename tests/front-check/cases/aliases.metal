#include <metal_stdlib>
using namespace metal;
typedef float4 vec4;
using index_t = uint;
typedef device float *fptr;
kernel void k(fptr out [[buffer(0)]], index_t tid [[thread_position_in_grid]]) {
    vec4 v = vec4(1.0f);
    using local_t = half;
    local_t h = local_t(v.x);
    out[tid] = v.y + float(h);
}
