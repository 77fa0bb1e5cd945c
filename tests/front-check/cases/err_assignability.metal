#include <metal_stdlib>
using namespace metal;
constant float table[2] = {1.0f, 2.0f};
kernel void k(device float4 *v [[buffer(0)]], constant float &c [[buffer(1)]],
              device const float *ro [[buffer(2)]]) {
    float4 a = v[0];
    a.xx = float2(1.0f);
    c = 2.0f;
    ro[0] = 1.0f;
    table[0] = 3.0f;
    const int k2 = 3;
    k2 = 4;
    1 = 2;
}
