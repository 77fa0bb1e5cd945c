#include <metal_stdlib>
using namespace metal;
kernel void k(device uchar *raw [[buffer(0)]], device float *out [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    float f = static_cast<float>(tid);
    int i = (int)f;
    uint u = uint(i);
    device float *fp = reinterpret_cast<device float *>(raw);
    uint bits = as_type<uint>(f);
    float back = as_type<float>(bits);
    half2 hh = as_type<half2>(f);
    out[tid] = fp[u] + back + float(hh.x);
}
