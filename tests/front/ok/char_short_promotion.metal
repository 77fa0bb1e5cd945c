#include <metal_stdlib>
using namespace metal;
kernel void k(device short* out [[buffer(0)]], device char* c [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  short s = out[tid];
  char ch = c[tid];
  out[tid] = s + ch;
}
