#include <metal_stdlib>
using namespace metal;
kernel void k(device int *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int a = 1, b = 2;
    int c = (a += 1, b *= a, a + b);
    for (int i = 0, j = 10; i < j; i++, j--) c += i;
    out[tid] = c;
}
