#include <metal_stdlib>
using namespace metal;
// continue inside a switch goes to the enclosing loop's latch
kernel void k(device int *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int s = 0;
    for (int i = 0; i < 4; ++i) {
        switch (i) {
        case 1: continue;
        case 3: { int t = i * 2; s += t; break; }
        }
        s += 1;
    }
    out[tid] = s;
}
