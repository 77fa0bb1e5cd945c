kernel void k(device int *p [[buffer(0)]]) {
    if (p[0]) {
        p[1] = 2;
    p[2] = 3;
