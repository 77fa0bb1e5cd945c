#include <metal_stdlib>
using namespace metal;
// & | ^ keep bool vectors bool; on scalar bools they promote to int as in C++
kernel void k(device float4 *v [[buffer(0)]], device int *o [[buffer(1)]]) {
  bool4 a = v[0] > 0.0f; bool4 b = v[1] > 0.0f;
  bool4 c = (a & b) | (a ^ b);
  bool s = true;
  o[0] = int(all(c)) + (s & true) + (s | false);
}
