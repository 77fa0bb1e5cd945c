// A union declared before a free function (ggml's headers have unions ahead of everything):
// the function's body must still be checked where it is declared, not held back as if it
// were a member of the union.
#include <metal_stdlib>
using namespace metal;
typedef union {
    float f;
    uint u;
} word_t;
static inline float square(float x) { return x * x; }
kernel void k(device const float *a [[buffer(0)]], device float *o [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    word_t w;
    w.f = square(a[i]);
    o[i] = w.f;
}
