struct S { float v; };
kernel void k(device float *o [[buffer(0)]]) {
    S a, b;
    a.v = 1.0f; b.v = 2.0f;
    S c = a + b;
    a *= 2.0f;
    o[0] = a[0];
}
