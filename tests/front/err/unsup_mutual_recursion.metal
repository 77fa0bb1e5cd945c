#include <metal_stdlib>
using namespace metal;
int ping(int n);
int pong(int n) { return n == 0 ? 0 : ping(n - 1); }
int ping(int n) { return n == 0 ? 1 : pong(n - 1); }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = float(ping(4));
}
