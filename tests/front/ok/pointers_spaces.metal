#include <metal_stdlib>
using namespace metal;
float load_it(device const float* p, uint i) { return p[i]; }
kernel void k(device float* out [[buffer(0)]], constant float* c [[buffer(1)]], threadgroup float* tg [[threadgroup(0)]], uint tid [[thread_position_in_grid]]) {
  thread float local = c[0];
  thread float* lp = &local;
  tg[0] = *lp;
  out[tid] = load_it(out, tid) + tg[0];
}
