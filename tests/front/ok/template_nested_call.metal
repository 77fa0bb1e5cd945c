#include <metal_stdlib>
using namespace metal;
template <typename T> T one() { return T(1); }
template <typename T> T add_one(T x) { return x + one<T>(); }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = add_one(out[tid]) + float(add_one(2));
}
