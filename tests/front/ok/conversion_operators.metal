#include <metal_stdlib>
using namespace metal;
template <typename T>
struct wrap {
  T v;
  wrap(T x) : v(x) {}
  constexpr operator T() const { return v * T(2); }
  explicit operator int() const { return 7; }
};
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  wrap<float> w(o[i]);
  float f = w;
  int n = int(w);
  o[i] = f + float(n) + sqrt(float(w) * float(w));
}
