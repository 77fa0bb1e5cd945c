#include <metal_stdlib>
using namespace metal;
fragment float4 f() {
  return float4(1.0f);
}
