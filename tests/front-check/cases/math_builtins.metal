#include <metal_stdlib>
using namespace metal;
kernel void k(device float4 *v [[buffer(0)]], device float *s [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    float4 x = v[tid];
    float y = s[tid];
    v[tid] = abs(x) + fabs(x) + min(x, x) + max(x, 0.0f) + clamp(x, 0.0f, 1.0f) + mix(x, x, 0.25f) +
             step(0.5f, x) + smoothstep(0.0f, 1.0f, x) + sign(x) + saturate(x) + floor(x) + fract(x) +
             fmod(x, x) + exp2(x) + log(x) + pow(x, x) + rsqrt(x) + sin(x) + atan2(x, x) +
             fma(x, x, x) + normalize(x) + copysign(x, x) + select(x, -x, x > 0.5f);
    s[tid] = dot(x, x) + length(x.xyz) + distance(x, x) + cross(x.xyz, x.zyx).y +
             precise::sqrt(y) + fast::exp(y) + metal::precise::cos(y) + ldexp(y, 2) +
             float(isnan(y)) + float(all(isfinite(x))) + float(signbit(y)) + float(any(isinf(x)));
}
