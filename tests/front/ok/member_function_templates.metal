// member function templates, deduced per call, in structs and class templates
#include <metal_stdlib>
using namespace metal;
template <typename T> struct acc {
  T total;
  template <typename U> void add(U x) { total += T(x) * T(2); }
  template <typename U, int N> void add_vec(vec<U, N> v) { for (int i = 0; i < N; i++) total += T(v[i]); }
};
struct plain { float s; template <typename U> U get() const { return U(s); } template <typename U> float mul(U u) { return s * float(u); } };
kernel void k(device float* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  acc<float> a; a.total = 1.0f; a.add(3); a.add(0.5h); a.add_vec(float3(1, 2, 3));
  plain p; p.s = 2.5f;
  o[i] = a.total + p.mul(4) + p.mul(half(2));
}
