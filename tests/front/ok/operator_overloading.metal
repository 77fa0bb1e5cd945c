#include <metal_stdlib>
using namespace metal;
struct V2 {
    float x, y;
    V2(float a, float b) : x(a), y(b) {}
    V2 operator+(V2 o) const { return V2(x + o.x, y + o.y); }
    V2 &operator+=(V2 o) { x += o.x; y += o.y; return *this; }
    float operator[](int i) const { return i == 0 ? x : y; }
    bool operator==(V2 o) const { return x == o.x && y == o.y; }
};
V2 operator*(V2 a, float k) { return V2(a.x * k, a.y * k); }
V2 operator*(float k, V2 a) { return a * k; }
kernel void k(device const float *x [[buffer(0)]], device float *o [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    V2 a(x[i], 1.0f);
    V2 b = a + V2(2.0f, 3.0f);
    b += a * 2.0f;
    V2 c = 0.5f * b;
    o[i] = c[0] + c[1] + (a == a ? 100.0f : 0.0f);
}
