#include <metal_stdlib>
using namespace metal;
struct S { float3 a; char b; };
kernel void k(device ulong *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float3 v;
    out[tid] = sizeof(S) + alignof(S) + sizeof(float3) + sizeof(packed_float3) + sizeof v + alignof(half4) + sizeof(int[3]);
}
