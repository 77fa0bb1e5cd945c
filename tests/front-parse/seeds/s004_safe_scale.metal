// seed 004, Pitfall 3: bounds check
#include <metal_stdlib>
using namespace metal;

kernel void safe_scale(
device half* data [[buffer(0)]],
constant uint& count [[buffer(1)]],
uint tid [[thread_position_in_grid]]
) {
if (tid >= count) return; // Bounds check!
data[tid] = data[tid] * 2.0h;
}
