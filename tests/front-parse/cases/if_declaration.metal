// if (T x = e): the declaration and the if go into a block of their own; the name lives
// in both branches (and shadows a type of the same name there), and no further
#include <metal_stdlib>
using namespace metal;
struct S { int v; };
int pick(int v) { return v & 3; }
kernel void k(device int* out [[buffer(0)]], device float* f [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    int r = 0;
    if (int x = pick(int(tid)))
        r = x * 10;
    else
        r = x - 1;
    if (const float y{f[tid] * 2.0f}) r += int(y);
    if constexpr (const bool b = sizeof(int) == 4) r += 1;
    if (device float* p = f + 1) r += int(*p);
    if (int S = 3) r += S * 2;      // a variable named like the type: an expression here
    S s = {r};                      // ...and the type again after the if
    out[tid] = s.v;
}
