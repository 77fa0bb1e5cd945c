#include <metal_stdlib>
using namespace metal;
struct V { float a; float3 b; float c; };
kernel void k(device V* v [[buffer(0)]]) {
  v[0].c = v[0].b.y + v[0].a;
}
