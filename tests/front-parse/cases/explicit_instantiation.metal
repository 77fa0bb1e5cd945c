template <typename T>
[[kernel]] void fill(device T *out [[buffer(0)]], uint i [[thread_position_in_grid]]) { out[i] = T(1); }
template [[host_name("fill_float")]] [[kernel]] decltype(fill<float>) fill<float>;
typedef decltype(fill<half>) fill_t;
template [[host_name("fill_half")]] kernel fill_t fill<half>;
template <typename T> T twice(T x) { return x + x; }
template <> float twice<float>(float x) { return x * 2.0f; }
template <int N, void (*f)(device int *)> void call(device int *p) { f(p + N); }
kernel void after(device int *p [[buffer(0)]]) { p[0] = 1; }
typedef void (after_t)(device int *p);
template <typename T> kernel void put(device T *p [[buffer(0)]]) { p[0] = T(2); }
template [[host_name("put_int")]] kernel after_t put<int>;
