// A 2-D tiled matrix product with both barriers in place (tiles reused safely).
// run: --threadgroups 2,2 --threads 8,8 A=rand:float32:256 B=rand:float32:256 C=zeros:256 K=16 N=16
#include <metal_stdlib>
using namespace metal;

kernel void tiled(device const float *A [[buffer(0)]],
                  device const float *B [[buffer(1)]],
                  device float *C [[buffer(2)]],
                  constant uint &K [[buffer(3)]],
                  constant uint &N [[buffer(4)]],
                  uint2 pos [[thread_position_in_grid]],
                  uint2 lpos [[thread_position_in_threadgroup]])
{
    threadgroup float ta[8][8];
    threadgroup float tb[8][8];
    float acc = 0.0f;
    for (uint k0 = 0; k0 < K; k0 += 8) {
        ta[lpos.y][lpos.x] = A[pos.y * K + k0 + lpos.x];
        tb[lpos.y][lpos.x] = B[(k0 + lpos.y) * N + pos.x];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < 8; k++)
            acc += ta[lpos.y][k] * tb[k][lpos.x];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    C[pos.y * N + pos.x] = acc;
}
