#include <metal_stdlib>
using namespace metal;
namespace math {
    inline float sq(float x) { return x * x; }
    namespace inner {
        float cube(float x) { return sq(x) * x; }   // found in the enclosing namespace
    }
}
namespace other { float twice(float x) { return x + x; } }
using namespace other;
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float x = float(tid);
    out[tid] = math::sq(x) + math::inner::cube(x) + twice(x) + metal::abs(x);
}
