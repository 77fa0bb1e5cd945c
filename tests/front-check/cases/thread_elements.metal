// thread_elements(): this thread's two elements, a thread vec<T, 2>& over the matrix's own
// storage (a dereference of its address seen as a vec<T, 2>*), readable and assignable
#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], device const half *in [[buffer(1)]],
              uint lane [[thread_index_in_simdgroup]]) {
    simdgroup_float8x8 m = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    out[0] = m.thread_elements()[0];
    simdgroup_half8x8 h;
    h.thread_elements() = half2(in[lane], in[lane + 32]);
    h.thread_elements()[1] += 1.0h;
    simdgroup_store(h, (device half *)(out + 1), 8);
}
