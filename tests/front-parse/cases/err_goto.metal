kernel void k(device int *p [[buffer(0)]]) {
    int i = 0;
again:
    i++;
    if (i < 10) goto again;
    p[0] = i;
}
