#include <metal_stdlib>
using namespace metal;
struct Args { float scale; int n; };
template <typename args_t, typename T>
void apply(args_t args, device T *p, uint i) { p[i] = p[i] * T(args.scale) + T(args.n); }
kernel void k(constant Args &args [[buffer(0)]], device float *p [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    apply<constant Args &, float>(args, p, i);
    apply<Args>(args, p, i);
}
