#include <metal_stdlib>
using namespace metal;
// C++'s usual arithmetic conversions, each one an explicit convert
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int i = -3;
    uint u = tid + i;           // int to uint
    char c = 'a';
    short s = c + 1;            // char promotes to int
    half h = 1.5h;
    float f = h + 1.0f;         // half to float
    half g = h * 2;             // int to half
    long l = u + 1L;            // uint with long: long
    bool b = i;                 // int to bool
    out[tid] = f + g + float(l) + float(s) + float(b);
}
