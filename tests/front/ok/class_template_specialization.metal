// class template specializations, full and partial, chosen by their argument patterns;
// static members and member types of instantiations, reached qualified and unqualified
#include <metal_stdlib>
using namespace metal;
template <typename T, int N = 1> struct traits {
  static constant constexpr int kind = N * 10;
  using type = T;
  static T twice(T x) { return x + x; }
  T scale() { return T(kind) + twice(T(1)); }
};
template <> struct traits<float> { using type = half; float scale() { return 2.0f; } };
template <typename T> struct traits<vec<T, 2>> { T scale() { return T(3); } };
template <typename T> struct traits<device T*> { float scale() { return 5.0f; } };
template <typename T> struct only_specialized;
template <> struct only_specialized<half> { half v() { return 6.0h; } };
struct plain { static constant constexpr int k = 5; using type = short; };
using T3 = traits<int, 3>;
kernel void k(device float* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  traits<int> a; traits<float> b; traits<half2> c; traits<device int*> d; only_specialized<half> e;
  traits<int, 3>::type x = 4;
  traits<float>::type h = 1.5h;
  plain::type s = plain::k;
  o[i] = float(a.scale()) + b.scale() + float(c.scale()) + d.scale() + float(e.v())
       + float(traits<int, 2>::kind) + float(T3::kind) + float(x) + float(h) + float(s)
       + float(traits<int, 3>::twice(8));
}
