// the shape of MLX-style templated kernels
#include <metal_stdlib>
using namespace metal;
// METAL_FUNC comes from <metal_stdlib>
static constant constexpr const int SIMD_SIZE = 32;
template <typename T>
METAL_FUNC T op_add(T a, T b) { return a + b; }
template <typename T, typename U = float, int N_READS = 4>
[[kernel]] void add_kernel(device const T* a [[buffer(0)]],
                           device U* out [[buffer(1)]],
                           uint index [[thread_position_in_grid]]) {
  for (int i = 0; i < N_READS; ++i) {
    out[index * N_READS + i] = static_cast<U>(op_add<T>(a[index], T(i)));
  }
}
template <typename T, int BM, int BN>
struct Tile {
  static constexpr constant int kElems = BM * BN;
  T frag[kElems];
  METAL_FUNC void clear() thread { for (int i = 0; i < kElems; i++) frag[i] = T(0); }
};
kernel void use_tile(device float* out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {
  Tile<float, 2, 4> t;
  t.clear();
  out[tid] = t.frag[tid % Tile<float, 2, 4>::kElems] + float(SIMD_SIZE);
}
