// A per-row sum whose loop runs one element too far (<= instead of <), off the end of the
// matrix for the last row.
// run: --grid 8 --threads 8 m=rand:float32:64 sums=zeros:8 cols=8
#include <metal_stdlib>
using namespace metal;

kernel void row_sums(device const float *m [[buffer(0)]],
                     device float *sums [[buffer(1)]],
                     constant uint &cols [[buffer(2)]],
                     uint row [[thread_position_in_grid]])
{
    float s = 0.0f;
    for (uint c = 0; c <= cols; c++)
        s += m[row * cols + c]; // expect: out-of-bounds
    sums[row] = s;
}
