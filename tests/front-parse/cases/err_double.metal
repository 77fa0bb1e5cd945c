double twice(double x) { return x * 2; }
kernel void k(device float *p [[buffer(0)]]) {
    double d = p[0];
    p[1] = (double)d + double(1);
    p[2] = 1.0f;
}
