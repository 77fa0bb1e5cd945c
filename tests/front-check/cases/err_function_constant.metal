#include <metal_stdlib>
using namespace metal;
constant bool use_fast [[function_constant(0)]];
constant bool has_bias [[function_constant(1)]];
constant float scale [[function_constant(2)]] = 2.0f;
device int counter [[function_constant(3)]];
constant bool bias_given = is_function_constant_defined(has_bias);
kernel void k(device float *o [[buffer(0)]]) {
  o[0] = use_fast ? 1.0f : 0.0f;
  if (bias_given) o[1] = has_bias ? 1.0f : 0.0f;
  o[2] = is_function_constant_defined(o) ? 1.0f : 0.0f;
}
