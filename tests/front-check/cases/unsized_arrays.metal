#include <metal_stdlib>
using namespace metal;
// T a[] = {...}: the length comes from the initializer
constant float w[] = {1.0f, 2.0f, 3.0f};
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int local[] = {4, 5};
    out[tid] = w[2] + float(local[1]) + float(sizeof(w));
}
