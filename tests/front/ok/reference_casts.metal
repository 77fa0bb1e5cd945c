// reinterpret_cast to a reference: the object's storage seen as another type
#include <metal_stdlib>
using namespace metal;
kernel void k(device float* o [[buffer(0)]]) { float4 v = float4(1, 2, 3, 4); reinterpret_cast<thread float2&>(v) = float2(9, 8); float a[2] = {4.0f, 5.0f}; thread uint& u = reinterpret_cast<thread uint&>(a[0]); o[0] = v.x + v.y + v.z + float(u == as_type<uint>(4.0f)); }
