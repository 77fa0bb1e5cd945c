#include <metal_stdlib>
using namespace metal;
constant float table[4000][4000] = {};
kernel void k(device float *out [[buffer(0)]]) {
  float big[100000];
  float ok[16] = {};
  out[0] = ok[1];
}
