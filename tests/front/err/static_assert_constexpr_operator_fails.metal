#include <metal_stdlib>
using namespace metal;
template <typename T> struct cx {
  T real; T imag;
  constexpr cx(T r, T i) thread : real(r), imag(i) {}
};
template <typename T> constexpr cx<T> operator*(cx<T> a, cx<T> b) {
  return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
}
cx<float> slow(cx<float> a) { return a; }
static_assert((cx<float>{1.0f, 2.0f} * cx<float>{3.0f, 4.0f}).imag == 11.0f, "the product's imaginary part");
static_assert((cx<int>{1, 2} * cx<int>{3, 4}).real == -5);
// not constexpr: left unchecked, said so
static_assert(slow(cx<float>{1.0f, 2.0f}).real == 1.0f);
