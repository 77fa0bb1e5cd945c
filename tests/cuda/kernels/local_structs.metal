// local_structs.metal — a local struct of a function template is a new struct in each instance;
// both meet in one CUDA program (tests/cuda: cuda.files compiles it by NVRTC; the values are
// checked by tests/semantic/test_sem_templates.py)
#include <metal_stdlib>
using namespace metal;

template <typename T, int N>
float sum_packed(device const T *p) {
    typedef struct { T v[N]; } pack;
    pack local = *((device const pack *)p);
    float s = 0.0f;
    for (int j = 0; j < N; j++) s += float(local.v[j]) * float(j + 1);
    return s;
}
kernel void k(device const uint *a [[buffer(0)]], device const uchar *b [[buffer(1)]],
              device float *out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    out[i] = sum_packed<uint, 2>(a + 2 * i) - sum_packed<uchar, 4>(b + 4 * i);
}

