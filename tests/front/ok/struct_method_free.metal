#include <metal_stdlib>
using namespace metal;
struct Acc { float s; int n; };
void add(thread Acc& a, float v) { a.s += v; a.n++; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  Acc a = {0.0f, 0};
  add(a, 2.0f);
  out[tid] = a.s / float(a.n);
}
