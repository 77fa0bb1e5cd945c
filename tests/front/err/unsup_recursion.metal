#include <metal_stdlib>
using namespace metal;
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = float(fact(5));
}
