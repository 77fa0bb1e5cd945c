kernel void k(device int *p [[buffer(0)]]) {
    p[0] = ;
    p[1] = 1 + * ;
    p[2] = (1 + );
    int x = 3;
    p[3] = x;
}
