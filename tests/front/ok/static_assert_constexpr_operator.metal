// static_assert over constexpr operators of constant struct objects (MLX's complex.h):
// the objects, the operator's result and its member are evaluated while checking
#include <metal_stdlib>
using namespace metal;
template <typename T> struct cx {
  T real; T imag;
  constexpr cx(T r, T i) thread : real(r), imag(i) {}
};
template <typename T> constexpr cx<T> operator*(cx<T> a, cx<T> b) {
  return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
}
template <typename T> constexpr T norm2(cx<T> a) { return a.real * a.real + a.imag * a.imag; }
static_assert((cx<half>{1.0h, 2.0h} * cx<half>{3.0h, 4.0h}).real == -5.0h);
static_assert((cx<float>{1.0f, 2.0f} * cx<float>{3.0f, 4.0f}).imag == 10.0f, "imag");
static_assert(norm2(cx<int>{3, 4} * cx<int>{1, 1}) == 50);
kernel void k(device half* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  cx<half> z = cx<half>{o[i], 1.0h} * cx<half>{2.0h, o[i]};
  o[i] = z.real;
}
