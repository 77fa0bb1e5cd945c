kernel void k(device float *p [[buffer(0)]]) {
    float arr[4];
    thread float (&ref)[4] = arr;
    thread float (*ptr)[4] = &arr;
    p[0] = 1.0f;
}
