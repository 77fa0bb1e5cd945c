// A row-wise softmax written the Metal way: one threadgroup per row, each thread strides
// over the row, and two threadgroup tree reductions (the maximum, then the sum) meet at
// barriers. y[r][i] = exp(x[r][i] - max_r) / sum_r.
#include <metal_stdlib>
using namespace metal;

kernel void softmax_rows(device const float *x [[buffer(0)]],
                         device float *y [[buffer(1)]],
                         constant uint &cols [[buffer(2)]],
                         uint row [[threadgroup_position_in_grid]],
                         uint lid [[thread_position_in_threadgroup]],
                         uint lsize [[threads_per_threadgroup]])
{
    threadgroup float part[1024];
    device const float *xr = x + row * cols;
    device float *yr = y + row * cols;
    float m = -INFINITY;
    for (uint i = lid; i < cols; i += lsize)
        m = fmax(m, xr[i]);
    part[lid] = m;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = lsize / 2; s > 0; s /= 2) {
        if (lid < s)
            part[lid] = fmax(part[lid], part[lid + s]);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    m = part[0];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float sum = 0.0f;
    for (uint i = lid; i < cols; i += lsize)
        sum += exp(xr[i] - m);
    part[lid] = sum;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = lsize / 2; s > 0; s /= 2) {
        if (lid < s)
            part[lid] += part[lid + s];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    float inv = 1.0f / part[0];
    for (uint i = lid; i < cols; i += lsize)
        yr[i] = exp(xr[i] - m) * inv;
}
