kernel void k(device float *p [[buffer(0)], uint tid [[thread_position_in_grid]]) {
    p[tid] = 1.0f;
}
kernel void k2(device float *p [[buffer(]]) { p[0] = 2.0f; }
kernel void k3(device float *p [[ ]]) { p[0] = 3.0f; }
