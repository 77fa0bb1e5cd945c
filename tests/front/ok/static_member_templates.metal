// static member functions of class templates, templates among them, see the class's
// parameters (MLX steel's TransformNone<OutT, InT>::apply)
#include <metal_stdlib>
using namespace metal;
template <typename T> struct tr { template <typename U> static T conv(U x) { return T(x) * T(2); } static T one() { return conv(1); } };
template <typename OutT, typename InT> struct TN { static METAL_FUNC OutT apply(InT x) { return static_cast<OutT>(x); } };
kernel void k(device float* o [[buffer(0)]]) {
  o[0] = tr<float>::conv(1.5h) + tr<float>::one() + tr<float>::template conv<int>(3) + TN<float, half>::apply(1.5h);
}
