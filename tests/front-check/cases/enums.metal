#include <metal_stdlib>
using namespace metal;
enum Mode { MODE_A, MODE_B = 5, MODE_C };
enum class Op : uchar { Add = 1, Mul };
kernel void k(device int *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    Mode m = MODE_C;
    Op o = Op::Mul;
    int arr[MODE_B];
    arr[0] = m;
    out[tid] = arr[0] + int(o) + Mode::MODE_A;
}
