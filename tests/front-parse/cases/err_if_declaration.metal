// declarations in conditions: what is still wrong or not supported
#include <metal_stdlib>
using namespace metal;
kernel void k(device int* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int r = 0;
    if (int x) r = 1;                 // no initializer
    if (int y(3)) r = 2;              // C++ allows only = or {} here
    if (int z = 1) r = z;
    r += z;                           // z is out of scope after the if
    while (int w = r) r = w - 1;      // only if takes a declaration in enigma
    out[tid] = r;
}
