#include <metal_stdlib>
using namespace metal;
kernel void k(device float *a [[buffer(1)]], device float *b [[buffer(1)]],
              threadgroup float *t [[threadgroup(0)]], threadgroup float *u [[threadgroup(0)]],
              device float *big [[buffer(31)]]) {
    a[0] = b[0] + t[0] + u[0] + big[0];
}
