#include <metal_stdlib>
#include <metal_texture>
#define F(x) x
#if 1 / 0
#endif
kernel void k(device float* out [[buffer(0)]]) { out[0] = F(1.0f, 2.0f); }
#error stop
