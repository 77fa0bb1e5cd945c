// if constexpr in a member function of a class template: the discarded branch is not checked
#include <metal_stdlib>
using namespace metal;
struct cx { float real, imag; };
template <typename T> struct LessThan {
  bool operator()(T a, T b) const thread {
    if constexpr (is_same_v<T, cx>) { return a.real < b.real; }
    else { return a < b; }
  }
};
kernel void k(device float* o [[buffer(0)]]) { cx p = {1, 2}, q = {3, 4}; o[0] = float(LessThan<float>()(2.0f, 1.0f)) + 10.0f * float(LessThan<cx>()(p, q)); }
