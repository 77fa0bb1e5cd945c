#include <metal_stdlib>
using namespace metal;
#include "inc/once.h"
#include "inc/once.h"
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = once_value();
}
