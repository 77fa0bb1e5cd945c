#include <metal_stdlib>
using namespace metal;
// a scalar operand splats to the vector's lanes; a constant may narrow into them
kernel void k(device float4 *f [[buffer(0)]], device half4 *h [[buffer(1)]],
              constant float &s [[buffer(2)]], uint tid [[thread_position_in_grid]]) {
    f[tid] = f[tid] * s + 1;
    h[tid] = h[tid] * 2.0f;
    uint4 u = uint4(tid) + 1u;
    f[tid] += float4(u);
}
