kernel void k(device float *p [[buffer(0)]]) {
    auto f = [](float x) { return x * 2.0f; };
    auto g = [&p](int i) -> float { return p[i]; };
    p[0] = 1.0f;
}
