// seed 004, Pattern D: 2D tiling (the seed leaves the body as a sketch)
#include <metal_stdlib>
using namespace metal;

kernel void gemm_tiled(
device const half* A [[buffer(0)]],
device const half* B [[buffer(1)]],
device half* C [[buffer(2)]],
constant uint& M [[buffer(3)]],
constant uint& N [[buffer(4)]],
constant uint& K [[buffer(5)]],
uint2 gid [[threadgroup_position_in_grid]],
uint lid [[thread_position_in_threadgroup]],
uint simd_id [[simdgroup_index_in_threadgroup]]
) {
// Each threadgroup computes a TM x TN tile of C
// gid.y = tile row, gid.x = tile column
uint tile_row = gid.y; // Which TM-row block
uint tile_col = gid.x; // Which TN-column block
// Each SIMD group within the threadgroup computes a sub-tile
// ...
}
