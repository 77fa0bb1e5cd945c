#include <metal_stdlib>
using namespace metal;
namespace a { namespace b { constant float k = 2.0f; } }
using namespace a::b;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = k;
}
