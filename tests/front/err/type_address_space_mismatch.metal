#include <metal_stdlib>
using namespace metal;
float get(device float* p) { return p[0]; }
kernel void k(constant float* c [[buffer(0)]], device float* out [[buffer(1)]]) {
  out[0] = get(c);
}
