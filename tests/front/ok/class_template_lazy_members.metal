// A class template instance's member functions are instantiated where they are used: an
// unused one may be ill-formed for these arguments (MLX's CumSum<complex64_t>). Its static
// member functions leave out discarded `if constexpr` branches. A struct constant built by
// static_cast at class scope, and an array arm of ?: beside a null pointer.
#include <metal_stdlib>
using namespace metal;
struct pair_t {
    float a, b;
    constexpr pair_t(float x) thread : a(x), b(0.0f) {}
};
template <typename U>
struct Sum {
    static constexpr constant U init = static_cast<U>(0);
    U scan_impl(U x) thread { return simd_prefix_inclusive_sum(x); }
    static U combine(U x, U y) {
        if constexpr (is_floating_point_v<U>) {
            if (isnan(x)) return x;
        }
        return x;
    }
};
kernel void k(device float *o [[buffer(0)]], uint l [[thread_position_in_threadgroup]]) {
    Sum<pair_t> s;
    pair_t p = Sum<pair_t>::combine(Sum<pair_t>::init, pair_t(2.0f));
    threadgroup float scratch[32];
    threadgroup float *t = l > 64 ? nullptr : scratch;
    t[l] = p.a + float(Sum<bool>::combine(true, false));
    threadgroup_barrier(mem_flags::mem_threadgroup);
    o[l] = t[31 - l];
    (void)s;
}
