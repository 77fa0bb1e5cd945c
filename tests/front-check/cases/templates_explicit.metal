#include <metal_stdlib>
using namespace metal;
template <typename T, uint N> T scaled(T x) { return x * T(N); }
template <int N> int fixed() { return N * 2; }
template <typename T = float> T one() { return T(1); }
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    out[tid] = scaled<float, 4>(2.0f) + float(scaled<int, 3>(1)) + float(fixed<5>()) + one() + float(one<half>());
}
