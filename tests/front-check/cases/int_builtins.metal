#include <metal_stdlib>
using namespace metal;
kernel void k(device uint *u [[buffer(0)]], device int *i [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    uint x = u[tid];
    int y = i[tid];
    u[tid] = popcount(x) + clz(x) + ctz(x) + mulhi(x, x) + mul24(x, x) + mad24(x, x, x) +
             rotate(x, 3u) + addsat(x, x) + subsat(x, 1u) + absdiff(y, 3) + hadd(x, x) + rhadd(x, x) +
             max3(x, 1u, 2u) + min3(x, x, x) + median3(x, 1u, 9u) + extract_bits(x, 4, 8) +
             insert_bits(x, 1u, 0, 1) + reverse_bits(x);
    i[tid] = abs(y) + max(y, 0) + clamp(y, -1, 1);
}
