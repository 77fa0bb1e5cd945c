#include <metal_stdlib>
using namespace metal;
struct P {
    float norm() const { return sqrt(x * x + y * y); }
    float bad() { return zz; }
    void scale(float k) { x *= k; y *= k; }
    P(float a) { x = a; y = a; }
    float x, y;
};
kernel void k(device P *ps [[buffer(0)]], constant P &c [[buffer(1)]], device float *out [[buffer(2)]],
              uint tid [[thread_position_in_grid]]) {
    out[tid] = ps[tid].norm() + ps[tid].nothing();
    c.scale(2.0f);
    ps[tid].scale(1, 2);
    out[0] = this->x;
}
