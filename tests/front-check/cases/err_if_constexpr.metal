// outside a template both branches of `if constexpr` are checked; its condition must be
// a constant in an instantiation too
#include <metal_stdlib>
using namespace metal;
template <typename T>
T twice(T v, int n) {
    if constexpr (n > 0) return v + v;   // not a constant
    return v;
}
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    if constexpr (false) out[tid] = no_such_name;
    out[tid] = twice(1.0f, 2);
}
