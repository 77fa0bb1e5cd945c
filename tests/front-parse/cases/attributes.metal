[[max_total_threads_per_threadgroup(256)]]
kernel void k1(device float *p [[buffer(0)]],
               threadgroup float *scratch [[threadgroup(0)]],
               ushort2 lid [[thread_position_in_threadgroup]],
               uint3 tgs [[threadgroups_per_grid]],
               uint w [[thread_execution_width]],
               uint q [[thread_index_in_quadgroup]]) {
    scratch[lid.x] = p[lid.y];
}
[[kernel]] void k2(device float *p [[buffer(0), clang::noescape]]) [[max_total_threads_per_threadgroup(64)]] {
    p[0] = 1.0f;
}
kernel void k3(device float *p) { p[0] = 2.0f; }
