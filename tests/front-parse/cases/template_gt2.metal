template <typename T, typename U = vec<T, 2>> struct P { U u; };
template <typename T> struct W { static constant constexpr int value = 1; };
kernel void k(device int *q [[buffer(0)]]) {
    int2 v = static_cast<vec<int, 2>>(int2(1));
    q[0] = W<W<int>>::value + v.x;
    P<float> pf;
    q[1] = as_type<int>(as_type<float>(q[2])) >> 1;
    q[2] = sizeof(vec<vec<int, 2>, 2>);
}
