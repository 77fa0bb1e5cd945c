#include <metal_stdlib>
using namespace metal;
float helper(float x) {
    threadgroup float scratch[4];
    return x;
}
threadgroup float global_tg;
kernel void k(device float *out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]]) {
    for (int i = 0; i < 2; ++i) {
        threadgroup float in_loop;
    }
    if (lid == 0) {
        threadgroup int in_if;
    }
    threadgroup float init = 1.0f;
    out[0] = helper(1.0f);
}
