// a template parameter's default names the parameters before it; constructors after
// METAL_FUNC (inline __attribute__((__always_inline__)))
#include <metal_stdlib>
using namespace metal;
template <typename T> struct work_per_thread { static constant constexpr int n = 8 / sizeof(T); };
template <typename T, int N = work_per_thread<T>::n> struct chunk {
  T v[N];
  METAL_FUNC chunk(T x) { for (int i = 0; i < N; i++) v[i] = x; }
};
kernel void k(device float* o [[buffer(0)]]) { chunk<half> c(1.5h); o[0] = float(c.v[3]); }
