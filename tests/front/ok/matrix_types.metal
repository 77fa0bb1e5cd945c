#include <metal_stdlib>
using namespace metal;
template <typename type4x4>
void load_mat(device const half4x4 *src, thread type4x4 &reg) {
    reg = (type4x4)(*src);
}
kernel void mm(device const half4x4 *a [[buffer(0)]], device float *o [[buffer(1)]], device matrix<float, 2, 3> *t [[buffer(2)]],
               uint i [[thread_position_in_grid]]) {
    float4x4 m;
    load_mat(a + i, m);
    float s = 0.0f;
    for (int c = 0; c < 4; c++) s += dot(m[c], float4(float(c + 1)));
    o[i] = s + m[2][3];
    float2x3 q;
    q[0] = float3(m[0].xyz);
    q[1] = float3(m[1][0], m[1][1], s);
    t[i] = q;
}
