// `>>` closing two template argument lists inside an expression: a qualified name's
// static member, a function template call, and a real shift next to them
#include <metal_stdlib>
using namespace metal;
template <typename T> struct cplx { T re, im; };
template <typename T> struct Init { static constexpr constant int v = sizeof(T); };
template <typename T> int size_of() { return sizeof(T); }
kernel void k(device int* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  o[i] = Init<cplx<float>>::v + 1;
  o[i] += size_of<array<cplx<half>, 3>>() + (int(i) >> 1);
  o[i] += Init<Init<cplx<float>>>::v * 100;
}
