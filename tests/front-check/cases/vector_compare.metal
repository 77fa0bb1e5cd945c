#include <metal_stdlib>
using namespace metal;
kernel void k(device float4 *v [[buffer(0)]], device bool *out [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    float4 a = v[tid];
    bool4 lt = a < float4(1.0f);
    bool4 eq = a == a.wzyx;
    bool2 n = !lt.xy;
    out[tid] = all(lt) || any(eq && lt) || n.x;
}
