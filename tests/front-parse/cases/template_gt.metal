template <typename T, int N> struct Arr { T v[N]; };
template <typename T> struct Box { T value; };
template <int N> int shift() { return N >> 1; }
kernel void k(device int *p [[buffer(0)]]) {
    Box<Box<int>> bb;
    Box<Arr<int, (8 > 4 ? 2 : 1)>> ba;
    Arr<Box<float>, 2> ab;
    int s = shift<4>() >> 1;
    int t = p[0] >> 2;
    bool u = p[1] > p[2];
    vec<int, 2 + 2> w;
    p[3] = s + t + int(u);
}
