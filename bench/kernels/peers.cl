/* The same kernels in OpenCL C, run through PoCL: the nearest peer on a CPU. */
__kernel void reduce_simd(__global const float *in, __global float *partials, uint n)
{
    __local float scratch[256];
    size_t gid = get_global_id(0), grid = get_global_size(0), lid = get_local_id(0);
    float acc = 0.0f;
    for (size_t i = gid; i < n; i += grid)
        acc += in[i];
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partials[get_group_id(0)] = scratch[0];
}

__kernel void naive_gemm(__global const float *A, __global const float *B, __global float *C,
                         uint K, uint N)
{
    size_t row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (uint k = 0; k < K; k++)
        acc = fma(A[row * K + k], B[k * N + col], acc);
    C[row * N + col] = acc;
}

#define TILE 16
__kernel void tiled_gemm(__global const float *A, __global const float *B, __global float *C,
                         uint K, uint N)
{
    __local float a_tile[TILE][TILE];
    __local float b_tile[TILE][TILE];
    size_t row = get_global_id(1), col = get_global_id(0);
    size_t ly = get_local_id(1), lx = get_local_id(0);
    float acc = 0.0f;
    for (uint k0 = 0; k0 < K; k0 += TILE) {
        a_tile[ly][lx] = A[row * K + k0 + lx];
        b_tile[ly][lx] = B[(k0 + ly) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TILE; k++)
            acc = fma(a_tile[ly][k], b_tile[k][lx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
