#include <metal_stdlib>
using namespace metal;
struct Pair { float a; int b; };
Pair make_pair(float x) { Pair p; p.a = x; p.b = 2; return p; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  Pair p = make_pair(1.0f);
  out[tid] = p.a + float(p.b);
}
