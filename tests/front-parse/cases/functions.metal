static inline float lerp1(float a, float b, float t = 0.5f) { return a + (b - a) * t; }
float decl_only(float x);
float decl_only(float x) { return x; }
void no_params(void) {}
inline void out_param(thread float &out, device const float *in) { out = in[0]; }
kernel void k(device float *p [[buffer(0)]]) {
    float r;
    out_param(r, p);
    p[0] = lerp1(r, 1.0f) + lerp1(r, 2.0f, 0.25f) + decl_only(r);
    no_params();
}
