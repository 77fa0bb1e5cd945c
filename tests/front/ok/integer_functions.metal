#include <metal_stdlib>
using namespace metal;
kernel void k(device uint* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  uint x = out[tid];
  uint a = popcount(x) + clz(x) + ctz(x) + mulhi(x, 3u) + mul24(x, 5u) + rotate(x, 3u);
  uint b = addsat(x, 7u) + subsat(x, 7u) + absdiff(x, 9u) + hadd(x, 1u) + rhadd(x, 1u);
  uint c = max3(x, 1u, 2u) + min3(x, 1u, 2u) + median3(x, 1u, 2u);
  uint d = extract_bits(x, 2u, 4u) + insert_bits(x, 5u, 1u, 3u) + reverse_bits(x);
  out[tid] = a + b + c + d;
}
