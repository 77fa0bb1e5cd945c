class Shape {
public:
    virtual float area() const = 0;
    float scale;
};
kernel void k(device float *p [[buffer(0)]]) { p[0] = 1.0f; }
