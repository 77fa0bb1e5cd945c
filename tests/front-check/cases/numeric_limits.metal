#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], device int *i [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    out[tid] = numeric_limits<float>::max() + numeric_limits<half>::lowest() + numeric_limits<float>::epsilon();
    i[tid] = numeric_limits<int>::min() + numeric_limits<int>::max() + int(numeric_limits<uchar>::max());
}
