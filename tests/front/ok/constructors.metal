#include <metal_stdlib>
using namespace metal;
template <typename T>
struct cplx {
    T re;
    T im;
    cplx() thread : re(0), im(0) {}
    cplx() threadgroup : re(1), im(1) {}
    cplx(T r, T i) thread : re(r), im{i} {}
    cplx(T r) thread : re(r), im(0) { im = im + T(1); }
    T norm2() const thread { return re * re + im * im; }
};
struct Acc {
    float total;
    int count;
    Acc(float start) : total(start), count(0) {}
    void add(float v) { total += v; count++; }
};
kernel void k(device const float *x [[buffer(0)]], device float *o [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    cplx<float> a(x[i], 2.0f);
    cplx<float> b{3.0f, x[i]};
    cplx<float> c = 5.0f;
    cplx<float> z;
    cplx<float> w = cplx<float>(x[i]);
    Acc acc(1.0f);
    acc.add(a.norm2());
    acc.add(b.norm2() + c.im + z.re + w.im);
    o[i] = acc.total + float(acc.count);
}
