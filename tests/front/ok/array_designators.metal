#include <metal_stdlib>
using namespace metal;
template <short R>
float fill_sum(float x) {
    float acc[R] = { [ 0 ... R - 1 ] = 0.5f };
    float4 v[3] = { [1] = float4(x), [2 ... 2] = float4(2.0f) };
    for (short r = 0; r < R; ++r) acc[r] += x * r;
    float s = v[0].x + v[1].y + v[2].z;
    for (short r = 0; r < R; ++r) s += acc[r];
    return s;
}
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    o[i] = fill_sum<4>(o[i]);
}
