#include <metal_stdlib>
using namespace metal;
kernel void k(device int *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    break;
    continue;
    switch (tid) { case 1: break; case 1: break; default: break; default: break; }
    switch (1.5f) { case 1: break; }
    float4 v;
    if (v) out[0] = 1;
    int z = 4 / 0;
}
