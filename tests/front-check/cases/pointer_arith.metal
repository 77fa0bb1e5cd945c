#include <metal_stdlib>
using namespace metal;
kernel void k(device float *data [[buffer(0)]], constant uint &stride [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    device float *row = data + tid * stride;
    device float *last = row + (stride - 1);
    *row = row[1] + *last;
    device const float *c = row;
    data[0] = c[2] + *(c - 1);
}
