#include <metal_stdlib>
using namespace metal;
constexpr constant static float kv[4] = {1.0f, 2.0f, 3.0f, 4.0f};
static inline float pick(int n, constant float *val, float x) { return val[n] * x; }
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    o[i] = pick(int(i % 4), kv, o[i]);
}
