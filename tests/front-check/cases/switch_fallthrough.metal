#include <metal_stdlib>
using namespace metal;
// a one-shot loop: a matched flag guards each statement, break leaves the loop
kernel void k(device int *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int r = 0;
    switch (tid % 4) {
    case 0:
        r = 10;
        break;
    case 1:
    case 2:
        r += 1;       // falls through
    default:
        r += 100;
    }
    out[tid] = r;
}
