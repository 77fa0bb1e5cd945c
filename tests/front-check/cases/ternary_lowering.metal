#include <metal_stdlib>
using namespace metal;
kernel void k(device const float *a [[buffer(0)]], device float *out [[buffer(1)]],
              constant uint &n [[buffer(2)]], uint tid [[thread_position_in_grid]]) {
    float x = tid < n ? a[tid] : 0.0f;        // a load on one arm: an if
    float y = tid > 4 ? 1.0f : 2.0f;          // pure: a select
    uint q = tid != 0 ? n / tid : 0;          // a division: an if
    out[tid] = x + y + float(q);
}
