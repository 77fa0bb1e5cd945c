// SFINAE: enable_if_t in a template parameter's default, and as a value parameter's type
#include <metal_stdlib>
using namespace metal;
template <typename T> constexpr constant bool is_wide = sizeof(T) > 2;
template <typename T, enable_if_t<is_wide<T>, bool> = true> float pick(T x) { return 1.0f; }
template <typename T, enable_if_t<!is_wide<T>, bool> = true> float pick(T x) { return 2.0f; }
kernel void k(device float* o [[buffer(0)]]) { o[0] = pick(1.0f) + 10.0f * pick(half(1)); }
template <typename T, typename = enable_if_t<is_floating_point_v<T>>> T twice(T x) { return x + x; }
template <typename T, typename = enable_if_t<is_integral_v<T>>> T twice(T x) { return x * 3; }
kernel void k2(device float* o [[buffer(0)]]) { o[0] = twice(1.5f) + float(twice(2)); }
