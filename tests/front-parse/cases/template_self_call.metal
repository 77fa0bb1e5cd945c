// a function template is known as one inside its own body: f<N - 1>(x) is a call with
// template arguments, not (f < N - 1) > (x)
#include <metal_stdlib>
using namespace metal;
template <int N>
float power(float x) {
    if constexpr (N == 0) return 1.0f;
    else return x * power<N - 1>(x);
}
template <typename T, int N>
T sum_to(T x) {
    T r = x * T(N);
    if constexpr (N > 1) r += sum_to<T, N - 1>(x);
    return r;
}
namespace ns {
template <int N> int depth(int v) { return N > 0 ? ns::depth<(N > 0 ? N - 1 : 0)>(v) : v; }
}
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    out[tid] = power<3>(float(tid)) + sum_to<float, 2>(1.0f);
}
