#include <metal_stdlib>
template <typename T, typename... Us> T sum(T x, Us... us) { return x; }
kernel void k(device float* o [[buffer(0)]]) { o[0] = sum(2.0f, 1.0f); }
