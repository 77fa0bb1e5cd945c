// constexpr function calls with constant arguments are constants (array lengths, constexpr
// variables, make_uniform); value traits are types where a type is expected (Metal's internal
// _disjunction of is_same<...> traits, as MLX's atomic.h writes it)
#include <metal_stdlib>
using namespace metal;
template <int wsize, int bits>
inline constexpr short get_pack_factor() { return wsize / bits; }
template <typename T>
constexpr constant bool is_atomicish = _disjunction<is_same<T, int>, is_same<T, float>>::value;
kernel void k(device int *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    constexpr int pf = get_pack_factor<32, 4>();
    constexpr const uniform<int> stride = make_uniform(pf * 2);
    int a[pf];
    a[0] = stride;
    static_assert(is_atomicish<float> && !is_atomicish<uint>, "disjunction");
    o[i] = a[0] + pf;
}
