#include <metal_stdlib>
using namespace metal;
// while tests at the top of the body; do-while tests in the latch
kernel void k(device int *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int i = int(tid);
    while (i > 10) i -= 3;
    int n = 0;
    do {
        n++;
        if (n == 2) continue;
    } while (n < i);
    out[tid] = n;
}
