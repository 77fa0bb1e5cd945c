// a constexpr function called with an argument that is not a constant is no constant
#include <metal_stdlib>
using namespace metal;
constexpr int twice(int x) { return 2 * x; }
kernel void k(device int *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    constexpr int n = twice(int(i));
    o[i] = n;
}
