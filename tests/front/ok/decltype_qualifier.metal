// decltype(x)::member in expressions and decltype(x) as a template argument
template <int N> struct tile { static constant constexpr int kElems = N * 2; float v[N * 2]; };
template <typename T> using id_t = T;
kernel void k(device float* o [[buffer(0)]]) { tile<3> t; float s = 0; for (int i = 0; i < decltype(t)::kElems; i++) { t.v[i] = i; s += t.v[i]; } o[0] = s; id_t<decltype(s)> z = 1; o[1] = z; }
