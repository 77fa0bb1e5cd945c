// objects with operator() are called: a temporary (Op()(a, b)) and a variable (sc(x))
#include <metal_stdlib>
using namespace metal;
struct Add { template <typename T> T operator()(T a, T b) { return a + b; } };
struct Scale { float s; float operator()(float x) const { return s * x; } };
template <typename T, typename Op> kernel void bin(device const T* a [[buffer(0)]], device T* c [[buffer(1)]], uint i [[thread_position_in_grid]]) {
  c[i] = Op()(a[i], a[i + 1]);
  Scale sc{2.0f};
  c[i] = sc(c[i]);
}
template [[host_name("bin_add")]] kernel void bin<float, Add>(device const float*, device float*, uint);
