#include <metal_stdlib>
using namespace metal;
kernel void k(texture2d<float> tex [[texture(0)]], device float* out [[buffer(0)]], uint2 gid [[thread_position_in_grid]]) {
  out[0] = tex.read(gid).x;
}
