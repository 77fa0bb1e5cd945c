struct Op { float k; float f(float x) const; };
kernel void kk(device float* o [[buffer(0)]]) { Op op{3.0f}; o[0] = op.f(2.0f); }
