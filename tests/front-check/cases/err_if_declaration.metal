// declarations in conditions: the name ends with the if; its type must convert to bool
#include <metal_stdlib>
using namespace metal;
struct S { int v; };
kernel void k(device int* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int r = 0;
    if (int z = int(tid)) r = z;
    else r = z + 1;
    r += z;                           // z is out of scope after the if
    if (S s = {1}) r += s.v;          // a struct is no condition
    if (device int* p = out) r += *p; // a pointer is (p != nullptr)
    out[tid] = r;
}
