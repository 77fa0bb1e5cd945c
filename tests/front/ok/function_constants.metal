// ARGS: --constant=op=2 --constant=1=true --constant=scale=0.5 --constant=tile=-3
// function constants with values fold like constexpr; the branches they decide are left
// out; an optional constant is read only where is_function_constant_defined guards it
#include <metal_stdlib>
using namespace metal;
constant short op [[function_constant(10 + 0)]];
constant bool use_bias [[function_constant(1)]];
constant float scale [[function_constant(2)]];
constant int tile [[function_constant(3)]];
constant uint extra [[function_constant(4)]];
constant bool has_extra = is_function_constant_defined(extra);
constant uint extra_or_one = is_function_constant_defined(extra) ? extra : 1u;
kernel void k(device float* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float v = x[i] * scale;
  if (op == 1) {
    v = v + 100.0f;
  } else if (op == 2) {
    v = v - 7.0f;
  }
  if (use_bias && !has_extra) v += float(tile);
  if (has_extra) v += float(extra);
  x[i] = v * float(extra_or_one);
}
