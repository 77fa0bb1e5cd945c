#include <metal_stdlib>
using namespace metal;
#if __METAL_VERSION__ >= 300 && defined(__ENIGMA__)
#define VALUE 3.0f
#else
#error old
#endif
#ifndef VALUE
#error no value
#endif
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = VALUE;
}
