kernel void k(device float *f [[buffer(0)]], device uint *u [[buffer(1)]]) {
    f[0] = 1.0f + 2.5h + 3.0 + 1e-3f + 0x1p4f;
    u[0] = 10u + 0x1Fu + 077 + 5ul + 'a';
    bool t = true, n = false;
    f[1] = t ? 1.0bf : 0.0f;
}
