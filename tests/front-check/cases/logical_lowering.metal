#include <metal_stdlib>
using namespace metal;
// && and || stay operators when their right side is pure; a load there becomes an if
kernel void k(device const float *a [[buffer(0)]], device float *out [[buffer(1)]],
              constant uint &n [[buffer(2)]], uint tid [[thread_position_in_grid]]) {
    bool pure = tid > 2 && tid < 10;
    bool guarded = tid < n && a[tid] > 0.0f;
    bool either = tid == 0 || a[tid - 1] < 1.0f;
    if (pure && guarded && either) out[tid] = 1.0f;
}
