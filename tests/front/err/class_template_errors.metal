template <typename T, int N> struct Vec { T v[N]; };
template <typename T> struct Later;
kernel void k(device float *o [[buffer(0)]]) {
    Vec<float> a;
    Vec b;
    Later<int> c;
    o[0] = 1.0f;
}
