// in a class template: a static member's body sees overloads declared after it; a nested
// struct is each instance's own; reference parameters overload on address space; global
// operators are found from inside a namespace that has operators of its own
#include <metal_stdlib>
using namespace metal;
struct cx { float re, im; };
cx operator*(cx a, cx b) { return cx{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
void bump(device float& x) { x += 1.0f; }
void bump(threadgroup float& x) { x += 2.0f; }
namespace lib {
struct tag {};
tag operator*(tag a, tag b) { return a; }
template <typename T, int N> struct frag {
  struct vec_t { T v[N]; };
  static T twice(T x) { return add(x, x); }
  static T add(T a, T b) { return a + b; }
  static cx sq(cx c) { return c * c; }
};
}
kernel void k(device float* o [[buffer(0)]], uint l [[thread_index_in_threadgroup]]) {
  threadgroup float t[1];
  t[0] = 0.0f;
  lib::frag<float, 2>::vec_t a = {{1.0f, 2.0f}};
  lib::frag<half, 3>::vec_t b = {{1.0h, 2.0h, 3.0h}};
  cx z = lib::frag<float, 2>::sq(cx{0.0f, 1.0f});
  bump(o[1]);
  bump(t[0]);
  o[0] = lib::frag<float, 2>::twice(a.v[1]) + float(b.v[2]) + z.re + t[0];
}
