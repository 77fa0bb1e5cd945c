kernel void k(device float *p [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    [[likely]] if (tid < 4) p[tid] = 1.0f;
    [[maybe_unused]] float unused = 2.0f;
    [[clang::unroll]] for (int i = 0; i < 2; i++) p[i] += 1.0f;
}
