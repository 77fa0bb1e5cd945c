// member functions declared in the struct and defined outside it (S::f, S::operator())
struct Op { float k; float operator()(float x) const; float twice(float x) const; };
float Op::operator()(float x) const { return k * x; }
float Op::twice(float x) const { return 2.0f * (*this)(x); }
kernel void kk(device float* o [[buffer(0)]]) { Op op{3.0f}; o[0] = op(2.0f) + op.twice(1.0f); }
