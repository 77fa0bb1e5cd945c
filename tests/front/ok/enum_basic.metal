#include <metal_stdlib>
using namespace metal;
enum Mode { MODE_A, MODE_B = 5, MODE_C };
enum class Op : int { Add = 1, Mul = 2 };
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  Mode m = MODE_C;
  Op o = Op::Mul;
  out[tid] = float(int(m)) + float(int(o));
}
