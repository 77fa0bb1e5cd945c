constant float4 v(1.0f, 2.0f, 3.0f, 4.0f);
constant int k(-3);
constant int j(k);
constant float2 w{1.0f, 2.0f};
float f(float x);
void g(void);
kernel void kk(device float *p [[buffer(0)]]) { p[0] = v.x + f(w.y); }
