#include <metal_stdlib>
using namespace metal;
kernel void k(device long* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  long a = long(tid) * 4294967296l;
  ulong b = ulong(a) >> 3;
  out[tid] = a + long(b);
}
