#include <metal_stdlib>
using namespace metal;
struct Counter { int n; int next() { return ++n; } };
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  Counter c = {0};
  out[tid] = float(c.next());
}
