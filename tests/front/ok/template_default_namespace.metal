// a template parameter's default is evaluated in the template's namespace; static member overloads called through a type parameter
#include <metal_stdlib>
using namespace metal;
namespace ns {
template <typename OutT, typename InT> struct TN { static METAL_FUNC OutT apply(InT x) { return static_cast<OutT>(x); } static METAL_FUNC OutT apply(InT x, OutT y) { return static_cast<OutT>(x) + y; } };
template <typename T, typename Epilogue = TN<T, float>> struct K { static T run(float v) { return Epilogue::apply(v) + Epilogue::apply(v, T(1)); } };
}
kernel void k(device float* o [[buffer(0)]]) { o[0] = float(ns::K<half>::run(2.0f)); }
