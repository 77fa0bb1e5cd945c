// A private 3x4 tile whose column index comes from data: some threads' columns are 4,
// past the end of a row (which would land in the next row, or the next thread's tile).
// run: --grid 64 --threads 64 cols=rand:int32:64:0:5 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void tile_pick(device const int *cols [[buffer(0)]],
                      device float *out [[buffer(1)]],
                      uint gid [[thread_position_in_grid]])
{
    float t[3][4];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            t[r][c] = float(r * 4 + c);
    int c = cols[gid];
    t[gid % 3][c] = -1.0f; // expect: out-of-bounds
    out[gid] = t[0][0] + t[1][3] + t[2][c]; // expect: out-of-bounds
}
