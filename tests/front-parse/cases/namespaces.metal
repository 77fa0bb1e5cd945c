#include <metal_stdlib>
using namespace metal;
namespace util {
    constant float scale = 2.0f;
    inline float twice(float x) { return x * scale; }
    namespace detail { struct Tag { int v; }; }
}
namespace a::b { int f(int x) { return x; } }
namespace { int hidden(); }
kernel void k(device float *p [[buffer(0)]]) {
    util::detail::Tag t = {1};
    p[0] = util::twice(p[0]) + a::b::f(t.v) + ::util::scale;
    p[1] = metal::max(p[0], 1.0f) + precise::sin(p[1]) + fast::exp(p[2]);
    p[2] = metal::precise::cos(p[0]);
    util::detail::Tag u;
}
