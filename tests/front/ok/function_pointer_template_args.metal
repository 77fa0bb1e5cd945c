// function pointers as template arguments (function_pointer.c): the parameter's types
// written as an alias template, a typedef and a `using`; arguments written f, f<T>, &f<T>,
// and passed on from one template to another; every call through a parameter is direct
#include <metal_stdlib>
using namespace metal;

template <typename T> using BinaryOp = T (*)(T, T);
typedef float (*FloatOp)(float, float);
using IntOp = int (*)(int, int);

template <typename T> T add(T a, T b) { return a + b; }
template <typename T> T mul(T a, T b) { return a * b; }
float sub(float a, float b) { return a - b; }
float sub(float a, float b, float c) { return a - b - c; }
int max_of(int a, int b) { return a > b ? a : b; }

template <typename T, BinaryOp<T> f> T apply(T a, T b) { return f(a, b); }
// the same template reached with different functions through a parameter of its own
template <typename T, BinaryOp<T> f> T twice(T a, T b) { return apply<T, f>(f(a, b), b); }
template <FloatOp g> float on_floats(float a, float b) { return g(a, b); }
template <IntOp g> int on_ints(int a, int b) { return g(a, b); }

kernel void k(device float* x [[buffer(0)]], device int* y [[buffer(1)]], uint i [[thread_position_in_grid]]) {
  float a = x[i];
  x[i] = twice<float, mul<float>>(a, 3.0f) + twice<float, add<float>>(a, 5.0f) + on_floats<sub>(a, 7.0f) +
         on_floats<&add<float>>(a, 11.0f);
  y[i] = apply<int, mul<int>>(y[i], 13) + on_ints<max_of>(y[i], 17);
}
