#include <metal_stdlib>
using namespace metal;
namespace util { float inc(float x) { return x + 1.0f; } namespace deep { int two() { return 2; } } }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = util::inc(out[tid]) + float(util::deep::two());
}
