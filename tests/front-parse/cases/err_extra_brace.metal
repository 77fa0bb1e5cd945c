kernel void k(device int *p [[buffer(0)]]) {
    p[0] = 1;
}
}
kernel void k2(device int *p [[buffer(0)]]) { p[0] = 2; }
