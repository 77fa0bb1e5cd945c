#include <metal_stdlib>
using namespace metal;
float declared_only(float x);
kernel void k(device float *out [[buffer(0)]]) {
    out[0] = declared_only(1.0f);
}
