// base classes: fields first (an empty base takes no space), member functions, static members and member types found through them
#include <metal_stdlib>
using namespace metal;
template <typename T, T v> struct integral_constant { static constexpr constant T value = v; T get() const { return v; } };
template <bool B> using bool_constant = integral_constant<bool, B>;
template <typename T> struct is_small : bool_constant<(sizeof(T) <= 2)> {};
struct point { float x, y; float sum() const { return x + y; } };
struct point3 : public point { float z; float all() const { return sum() + z; } };
template <typename T> struct tagged : point3 { T tag; };
kernel void k(device float* o [[buffer(0)]]) {
  point3 p; p.x = 1; p.y = 2; p.z = 4;
  tagged<half> t; t.x = 10; t.y = 20; t.z = 40; t.tag = 0.5h;
  is_small<half> s;
  o[0] = p.sum() + p.all() + float(is_small<half>::value) * 100.0f + float(is_small<float>::value) * 1000.0f
       + t.all() + float(t.tag) + float(s.get()) * 10000.0f + float(sizeof(point3)) * 100000.0f;
}
