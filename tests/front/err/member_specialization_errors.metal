#include <metal_stdlib>
using namespace metal;
template <typename T>
struct Box {
  T v;
  T get() const thread { return v; }
};
kernel void early(device float* f [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  Box<float> b{f[i]};
  f[i] = b.get();
}
// after Box<float>::get was used
template <>
float Box<float>::get() const thread { return v * 2.0f; }
// no such member
template <>
float Box<int>::put() const thread { return 1.0f; }
// no overload with these parameters
template <>
float Box<half>::get(int x) const thread { return 1.0f; }
