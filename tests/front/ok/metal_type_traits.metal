// <metal_stdlib>'s class-template type traits: bool_constant, true_type, enable_if_t,
// conditional_t, remove_cv_t; a base class from them; names of namespace metal unqualified
#include <metal_stdlib>
using namespace metal;
template <typename T> struct is_small : bool_constant<(sizeof(T) <= 2)> {};
template <typename T, typename = enable_if_t<is_floating_point_v<T>>> T twice(T x) { return x + x; }
template <typename T> conditional_t<(sizeof(T) > 2), float, half> widen(T x) { return x; }
kernel void k(device float* o [[buffer(0)]]) {
  o[0] = float(is_small<half>::value) + 10.0f * float(metal::true_type::value) + twice(2.5f)
       + float(widen(1.5h)) + widen(2.0f);
  remove_cv_t<float> y = 3.0f;
  o[1] = y;
}
