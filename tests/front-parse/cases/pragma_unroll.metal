kernel void k(device float *p [[buffer(0)]]) {
    float acc = 0.0f;
    #pragma unroll
    for (int i = 0; i < 4; i++) acc += p[i];
    #pragma unroll 8
    for (int i = 0; i < 16; i++) {
        acc *= p[i];
    }
    #pragma unroll(2)
    while (acc > 1.0f) acc /= 2.0f;
    p[0] = acc;
}
