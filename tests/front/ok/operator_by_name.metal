// an operator function called by name, and an implicit conversion through a converting constructor
struct V { float x; };
V operator+(V a, V b) { return V{a.x + b.x}; }
V twice(V a) { return operator+(a, a); }
kernel void k(device float* o [[buffer(0)]]) { V v{1.5f}; o[0] = twice(v).x; }
struct cplx { float re, im; cplx(float r) : re(r), im(0.0f) {} cplx(float r, float i) : re(r), im(i) {} };
cplx as_complex(float x) { return x; }
kernel void k2(device float* o [[buffer(0)]]) { cplx c = as_complex(2.5f); o[0] = c.re + c.im; }
