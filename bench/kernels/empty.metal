// The smallest useful kernel: per-dispatch overhead is measured on it.
#include <metal_stdlib>
using namespace metal;

kernel void touch(device uint *out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]])
{
    if (lid == 0)
        out[0] += 1;
}
