// static member functions called through an object; auto pointers (const constant auto* p = q)
struct Ep { float k; static float apply(float x) { return 2.0f * x; } };
kernel void k(device float* o [[buffer(0)]], constant float* c [[buffer(1)]]) { Ep e{1.0f}; const constant auto* p = c + 1; auto* q = o; q[0] = e.apply(p[0]); }
