kernel void k(device float *p [[buffer(0)]]) {
    vec<float, 4 v;
    float x = as_type<float(p[0]);
    p[0] = static_cast<int(p[1]);
    p[1] = 2.0f;
}
