#include <metal_stdlib>
using namespace metal;
struct Cfg {
    static constexpr int N = 4;
    static constexpr constant float scale = 0.5f;
    float bias;
    static float twice(float x) { return x * 2.0f; }
    float apply(float x) const { return twice(x) * scale + bias + float(N); }
};
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    Cfg c;
    c.bias = 1.0f;
    float acc[Cfg::N];
    for (int j = 0; j < Cfg::N; j++) acc[j] = Cfg::twice(float(j));
    o[i] = c.apply(o[i]) + acc[3] + Cfg::scale;
}
