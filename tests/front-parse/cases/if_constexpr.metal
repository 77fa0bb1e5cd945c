template <typename T>
T pick(T a) {
    if constexpr (sizeof(T) == 4) {
        return a;
    } else {
        return a + a;
    }
}
kernel void k(device float *p [[buffer(0)]]) { p[0] = pick(p[0]); }
