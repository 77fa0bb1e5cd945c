#include <metal_stdlib>
using namespace metal;
void write_one(device float* p, uint i) { if (i > 3) return; p[i] = 1.0f; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  write_one(out, tid);
}
