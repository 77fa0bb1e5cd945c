#include <metal_stdlib>
using namespace metal;
kernel void k(device int *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int i = 0;
    int a = i++;      // the old value, kept in a temporary
    int b = ++i;      // the new value
    i--;
    out[tid] = a + b + i;
    device int *p = out;
    p++;
    *p = 1;
}
