#include <metal_stdlib>
using namespace metal;
// select(a, b, c): c is bool for scalars, boolN (or one bool for every lane) for vectors
kernel void k(device float4 *v [[buffer(0)]], device int *i [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
    float4 x = v[tid];
    v[tid] = select(x, -x, x < 0.0f) + select(x, x * 2.0f, tid > 3);
    i[tid] = select(1, 2, i[tid] > 0);
}
