// seed 004, Pitfall 4: divergent and SIMD-group-uniform branches, wrapped in a kernel
#include <metal_stdlib>
using namespace metal;

float expensive_computation_A(float x) { return x * x; }
float expensive_computation_B(float x) { return x + 1.0f; }

kernel void divergence(device const float* data [[buffer(0)]],
                       device float* out [[buffer(1)]],
                       uint tid [[thread_position_in_grid]]) {
float result;
// BAD: divergent branches within a SIMD group
if (tid % 2 == 0) {
// Even threads do expensive path A
result = expensive_computation_A(data[tid]);
} else {
// Odd threads do expensive path B
result = expensive_computation_B(data[tid]);
}
// BETTER: organize work so entire SIMD groups take the same branch
uint group = tid / 32;
if (group % 2 == 0) {
// Entire SIMD groups do path A
result = expensive_computation_A(data[tid]);
} else {
// Entire SIMD groups do path B
result = expensive_computation_B(data[tid]);
}
out[tid] = result;
}
