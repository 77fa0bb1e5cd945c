kernel void k(device float *p [[buffer(0)]], 3, uint tid [[thread_position_in_grid]]) {
    p[tid] = 1.0f;
}
kernel void k2(device float *p [[buffer(0)]], ...) { p[0] = 0.0f; }
kernel void k3(device float *p [[buffer(0)]] { p[0] = 0.0f; }
kernel void k4(device float *p [[buffer(0)]]) { p[0] = 4.0f; }
