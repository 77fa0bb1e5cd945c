// seed 004, Pattern A: one thread per element
#include <metal_stdlib>
using namespace metal;

kernel void scale(
device half* data [[buffer(0)]],
constant float& factor [[buffer(1)]],
uint tid [[thread_position_in_grid]]
) {
data[tid] = half(float(data[tid]) * factor);
}
