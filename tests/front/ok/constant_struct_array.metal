#include <metal_stdlib>
using namespace metal;
struct Coef { float a; float b; };
constant Coef table[2] = {{1.0f, 2.0f}, {3.0f, 4.0f}};
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = table[tid % 2].a * table[tid % 2].b;
}
