// a function template calling itself: f<N - 1>(x) in its own body is a call, and
// `if constexpr` inside an instantiation leaves out the branch not taken, which ends the
// recursion and may hold code that is only valid for the other arguments
#include <metal_stdlib>
using namespace metal;
template <int N>
float power(float x) {
    if constexpr (N == 0)
        return 1.0f;
    else
        return x * power<N - 1>(x);
}
template <typename T, int N>
T sum_to(T x) {
    T r = x * T(N);
    if constexpr (N > 1) r += sum_to<T, N - 1>(x);
    return r;
}
template <typename T>
float first(T v) {
    if constexpr (sizeof(T) == sizeof(float)) return float(v);
    else return v.x;               // only valid for vectors; never instantiated for float
}
kernel void k(device float* out [[buffer(0)]], device int* iout [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    out[tid] = power<3>(float(tid)) + power<0>(5.0f) + first(2.0f) + first(float2(1.0f, 2.0f));
    iout[tid] = sum_to<int, 4>(int(tid));
}
