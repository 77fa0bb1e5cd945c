// '<' after a name not known as a template opens arguments when a type follows
#include <metal_stdlib>
using namespace metal;
kernel void k(device float *p [[buffer(0)]], device int *q [[buffer(1)]]) {
    p[0] = metal::max<float>(p[1], p[2]) + min<float>(p[3], 1.0f);
    p[1] = select<float, bool>(p[0], p[1], true);
    int a = q[0], b = q[1];
    bool lt = a < b;
    q[2] = a < b > 0;
    q[3] = clamp<int>(a, 0, b);
}
