float add(float a, float b) { return a + b; }
kernel void k(device float *p [[buffer(0)]]) {
    float (*op)(float, float) = add;
    p[0] = 1.0f;
}
typedef float (*binop)(float, float);
