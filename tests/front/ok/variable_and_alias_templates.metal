// variable templates with partial specializations, alias templates, and deduction of a
// function template's parameters through a class template instantiation
#include <metal_stdlib>
using namespace metal;
template <typename T> struct complex_t;
template <typename T> struct complex_t { T re; T im; };
template <typename T> static constexpr constant bool is_complex_v = false;
template <typename T> static constexpr constant bool is_complex_v<complex_t<T>> = true;
template <typename T> constexpr constant int twice_size = sizeof(T) * 2;
template <typename T, T v> struct integral_constant { static constexpr constant T value = v; };
template <bool B> using bool_constant = integral_constant<bool, B>;
using true_type = bool_constant<true>;
template <typename T> using dptr = device T*;
template <typename T> T norm1(complex_t<T> c) { return abs(c.re) + abs(c.im); }
kernel void k(dptr<float> o [[buffer(0)]]) {
  complex_t<half> h = {1.5h, -2.0h};
  o[0] = float(is_complex_v<float>) + 2.0f * float(is_complex_v<complex_t<half>>) + float(twice_size<half>)
       + 10.0f * float(true_type::value) + float(bool_constant<false>::value) + float(norm1(h));
}
