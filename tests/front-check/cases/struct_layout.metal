#include <metal_stdlib>
using namespace metal;
// MSL layout: float3 is 16 bytes aligned to 16, packed_float3 12 bytes aligned to 4
struct P {
    float3 pos;
    float m;
    packed_float3 vel;
    half h;
    float2 uv;
    char c;
};
kernel void k(device P *ps [[buffer(0)]], device float *out [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    P p = ps[tid];
    p.pos.x += p.m;
    ps[tid].vel = p.vel;
    out[tid] = p.pos.x + float(p.h) + p.uv.y + float(p.c);
}
