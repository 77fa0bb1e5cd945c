#include <metal_stdlib>
using namespace metal;
struct In { float2 v; };
struct Out { In i; int n; };
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  Out o;
  o.i.v = float2(1.0f, 2.0f);
  o.n = 3;
  out[tid] = o.i.v.y * float(o.n);
}
