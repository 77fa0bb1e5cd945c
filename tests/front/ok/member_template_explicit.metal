// explicit template arguments on a member call (x.template f<N>(...)), a conversion operator called by name
#include <metal_stdlib>
using namespace metal;
struct red { template <int N> float sum(thread float* v) { float s = 0; for (int i = 0; i < N; i++) s += v[i]; return s; } };
struct h16 { half v; operator float() const { return float(v) * 2.0f; } float twice() const { return this->operator float(); } };
kernel void k(device float* o [[buffer(0)]]) { red r; float a[4] = {1, 2, 3, 4}; h16 h{1.5h}; o[0] = r.template sum<3>(a) + h.twice(); }
template <int M> float first_m(thread float* v) { red r; return r.template sum<M>(v); }
kernel void k2(device float* o [[buffer(0)]]) { float a[4] = {1, 2, 3, 4}; o[0] = first_m<2>(a); }
