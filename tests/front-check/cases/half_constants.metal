#include <metal_stdlib>
using namespace metal;
// half and bfloat constants are rounded to the type (nearest even), also when folded
kernel void k(device half *h [[buffer(0)]], device bfloat *b [[buffer(1)]]) {
  h[0] = 0.1h;
  h[1] = 70000.0h;
  h[2] = 1.0h / 3.0h;
  h[3] = half(1e-8f);
  h[4] = half(65519.0f);
  b[0] = bfloat(0.1f);
  b[1] = 3.14159bf;
}
