#include <metal_stdlib>
using namespace metal;
kernel void first(device float* a [[buffer(0)]], uint i [[thread_position_in_grid]]) { a[i] = 1.0f; }
kernel void second(device int* b [[buffer(0)]], uint i [[thread_position_in_grid]]) { b[i] = 2; }
