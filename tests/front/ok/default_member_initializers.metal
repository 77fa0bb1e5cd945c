// default member initializers: run by constructors, and where a struct without one is declared
template <int N> struct tile { float v[N] = {1.5f}; int count = N; tile() thread {} };
struct plain { float a = 2.5f; int b; };
kernel void k(device float* o [[buffer(0)]]) { tile<3> t; plain p; p.b = 1; o[0] = t.v[0] + t.v[1] + float(t.count) + p.a + float(p.b); }
