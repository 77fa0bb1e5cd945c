// static_assert in a struct sees a class template's parameters; one that calls functions
// at program scope is left unchecked, with a warning
#include <metal_stdlib>
using namespace metal;
struct pair_t { float a, b; constexpr pair_t(float x, float y) : a(x), b(y) {} };
constexpr pair_t operator+(pair_t x, pair_t y) { return pair_t(x.a + y.a, x.b + y.b); }
static_assert((pair_t(1, 2) + pair_t(3, 4)).a == 4.0f, "sum");
template <typename U> struct per_thread { static_assert(sizeof(U) <= 8, "too large"); static constexpr constant int n = 8 / sizeof(U); };
kernel void k(device float* o [[buffer(0)]]) { o[0] = float(per_thread<half>::n); }
