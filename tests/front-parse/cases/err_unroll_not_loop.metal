#pragma unroll
kernel void k(device float *p [[buffer(0)]]) {
    #pragma unroll 4
    p[0] = 1.0f;
    #pragma unroll
    for (int i = 0; i < 4; i++) p[i] = 0.0f;
    #pragma unroll 2
}
