template <typename T>
kernel void fill(device T *o [[buffer(0)]], uint i [[thread_position_in_grid]]) { o[i] = T(1); }
typedef decltype(fill<float>) fill_t;
template kernel fill_t fill<float>;
template [[host_name("bad name")]] kernel fill_t fill<int>;
template [[host_name("ok_name")]] kernel fill_t nosuch<int>;
template [[host_name("fill_f")]] kernel fill_t fill<float>;
template [[host_name("fill_f")]] kernel fill_t fill<half>;
template [[host_name("fill_2")]] kernel fill_t fill<float, 2>;
kernel void plain(device float *o [[buffer(0)]]) [[host_name("p")]] { fill_t x; o[0] = 1.0f; }
template <typename T> T twice(T x) { return x + x; }
template <> float twice<float, int>(float x) { return x; }
