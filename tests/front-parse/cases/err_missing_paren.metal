kernel void k(device int *p [[buffer(0)]]) {
    if (p[0] > 1 {
        p[0] = 1;
    }
    p[1] = (p[0] + 2;
    while (p[2] < 3) p[2]++;
    p[3] = max(p[0], p[1];
}
