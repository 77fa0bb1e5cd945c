#include <metal_stdlib>
using namespace metal;
// a thread reference parameter is a pointer; the argument's address is taken
void accumulate(thread float &acc, float x) { acc += x; }
float read_only(const thread float &x) { return x * 2.0f; }
void bump(device atomic_uint &c) { atomic_fetch_add_explicit(&c, 1u, memory_order_relaxed); }
kernel void k(device float *out [[buffer(0)]], device atomic_uint *counter [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    float acc = 0.0f;
    accumulate(acc, 2.0f);
    float r = read_only(acc + 1.0f);   // a value bound to a const reference: a temporary
    bump(counter[0]);
    out[tid] = acc + r;
}
