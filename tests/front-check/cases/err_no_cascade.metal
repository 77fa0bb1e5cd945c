#include <metal_stdlib>
using namespace metal;
// a declaration that fails still declares its name: its uses report nothing more
typedef Unknown Alias;
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    Mystery m;
    float3 v = float3(1, 2);
    Alias a;
    out[tid] = m + v.x + a;
    out[tid] += m * 2;
}
