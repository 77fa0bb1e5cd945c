#include <metal_stdlib>
using namespace metal;
#include "inc/helpers.h"
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = helper_double(out[tid]);
}
