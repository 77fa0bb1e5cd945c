kernel void k(device float *p [[buffer(0)]], sampler s [[sampler(0)]]) {
    constexpr sampler lin(coord::normalized, filter::linear);
    p[0] = 0.0f;
}
