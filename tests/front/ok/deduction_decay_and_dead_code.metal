// Template deduction decays arrays (threadgroup T* from a threadgroup array; W by value from a
// thread array is U*); constexpr calls at class scope; a constant-false `&&` makes its `if`
// dead, so its division by zero is never evaluated; `!` of a struct with operator bool;
// `constant int&` parameters taking `constant int&` arguments.
#include <metal_stdlib>
using namespace metal;
template <int bits> inline constexpr short per_byte() { return 8 / bits; }
template <int bits>
struct Packer {
    static constexpr constant short factor = per_byte<bits>();
};
struct NoMask {
    char x;
    constexpr METAL_FUNC operator bool() thread { return true; }
};
template <typename T>
METAL_FUNC void fill(threadgroup T* tile, uint l) { tile[l] = T(l); }
template <typename U, typename W>
METAL_FUNC void bump(W out, U v) { out += 1; out[0] = v; }
static float scaled(constant int& n, float x) { return x * float(n); }
static float pass_on(constant int& n, float x) { return scaled(n, x); }
kernel void k(device float *o [[buffer(0)]], constant int &n [[buffer(1)]],
              uint l [[thread_position_in_threadgroup]]) {
    threadgroup float tile[32];
    fill(tile, l);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float local[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    bump(local, tile[31 - l]);
    constexpr int zero = Packer<16>::factor;
    float r = local[1] + float(Packer<2>::factor);
    if (zero > 0 && l % zero == 0) {
        r += float(l / zero);
    }
    NoMask m;
    if (!m) r = 0.0f;
    o[l] = pass_on(n, r);
}
