// Program-scope constants of struct type built by constexpr constructors (MLX's sort.h:
// Init<complex64_t>::v = complex64_t(nan, nan)), and a constant initialised from another
#include <metal_stdlib>
using namespace metal;
template <typename T>
struct cplx {
    T re, im;
    constexpr cplx(T r, T i) thread : re(r), im(i) {}
    constexpr cplx() thread : re(0), im(0) {}
};
template <typename T> struct Init { static constexpr constant T v = T(0); };
template <> struct Init<cplx<float>> {
    static constexpr constant cplx<float> v = cplx<float>(numeric_limits<float>::infinity(), -2.5f);
};
constant cplx<float> origin = cplx<float>();
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    typedef cplx<float> cf;
    cplx<float> c = Init<cf>::v;
    o[i] = c.im + origin.re + float(isinf(c.re));
}
