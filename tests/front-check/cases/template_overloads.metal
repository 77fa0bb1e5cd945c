#include <metal_stdlib>
using namespace metal;
// a non-template beats a template on a tie; a template is instantiated only when chosen
// (the unchosen f<float> never has its body checked)
template <typename T> T f(T x) { return x + undefined_name; }
float f(float x) { return x * 2.0f; }
template <typename T> T g(T x, int k) { return x; }
template <typename T> T g(T x, T k) { return x + k; }
kernel void k(device float *out [[buffer(0)]]) {
  out[0] = f(1.0f) + g(1.0f, 2.0f);
}
