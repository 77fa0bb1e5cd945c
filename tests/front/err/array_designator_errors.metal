kernel void k(device float *o [[buffer(0)]]) {
    float a[4] = { [1 ... 4] = 1.0f };
    float b = { [0] = 1.0f };
    o[0] = a[0] + b;
}
