kernel void k(device float *p [[buffer(0)]]) {
    try { p[0] = 1.0f; } catch (int e) { p[0] = 0.0f; }
    throw 5;
    p[1] = 2.0f;
}
