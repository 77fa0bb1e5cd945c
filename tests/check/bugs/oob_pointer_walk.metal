// Pointer arithmetic that walks off its buffer: each thread handles two elements through a
// local pointer, but the grid has one thread per element.
// run: --grid 64 --threads 64 data=rand:float32:64
#include <metal_stdlib>
using namespace metal;

kernel void pairs(device float *data [[buffer(0)]],
                  uint gid [[thread_position_in_grid]])
{
    device float *p = data + gid * 2;
    float a = p[0]; // expect: out-of-bounds
    float b = p[1]; // expect: out-of-bounds
    p[0] = a + b; // expect: out-of-bounds
}
