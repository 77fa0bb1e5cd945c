// function values that would exist at run time: refused where they are written
#include <metal_stdlib>
using namespace metal;
typedef float (*FloatOp)(float, float);
template <typename T> using Op = T (*)(T);
float twice(float a) { return 2.0f * a; }
float add(float a, float b) { return a + b; }
template <FloatOp g> float on_floats(float a, float b) { return g(a, b); }
struct Holder { FloatOp f; };
kernel void k(device float* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  FloatOp f = add;
  Op<float> table[2];
  float (*raw)(float) = twice;
  auto g = twice;
  x[i] = on_floats<twice>(x[i], 1.0f);
  x[i] = on_floats<(i > 3 ? add : add)>(x[i], 1.0f);
}
