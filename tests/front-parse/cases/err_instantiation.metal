template <typename T>
[[kernel]] void fill(device T *out [[buffer(0)]], uint i [[thread_position_in_grid]]) { out[i] = T(1); }
template [[host_name("fill_float")]] [[kernel]] decltype(fill<float>) fill<float>;
template [[host_name("fill_half")]] [[kernel]] decltype(fill<half>) fill<half>;
kernel void after(device int *p [[buffer(0)]]) { p[0] = 1; }
