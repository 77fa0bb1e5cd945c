// conversion operator templates (template <typename U> operator U()), chosen by the target type; unary operators of structs
#include <metal_stdlib>
using namespace metal;
template <typename T> struct cx {
  T re, im;
  template <typename U, typename = enable_if_t<is_arithmetic_v<U>>> constexpr operator U() const thread { return static_cast<U>(re); }
};
kernel void k(device float* o [[buffer(0)]], device uchar* u [[buffer(1)]]) { cx<float> c = {7.5f, 1.0f}; o[0] = static_cast<float>(c) + float(int(c)); u[0] = static_cast<uchar>(c); }
template <typename T> cx<T> operator-(cx<T> a) { return cx<T>{-a.re, -a.im}; }
kernel void k2(device float* o [[buffer(0)]]) { cx<float> c = {2.0f, 3.0f}; cx<float> n = -c; o[0] = n.re + n.im; }
