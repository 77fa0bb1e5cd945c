kernel void k(device int *p [[buffer(0)]]) {
    int a = 1
    int b = 2;
    p[0] = a + b
    p[1] = a;
    a++ b++;
    return
}
