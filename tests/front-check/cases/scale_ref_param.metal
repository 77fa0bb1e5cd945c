#include <metal_stdlib>
using namespace metal;
// a constant reference is a pointer read through at each use
kernel void scale(device float *data [[buffer(0)]], constant float &factor [[buffer(1)]],
                  uint tid [[thread_position_in_grid]]) {
    data[tid] = data[tid] * factor;
}
