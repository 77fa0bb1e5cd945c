#include <metal_stdlib>
using namespace metal;
struct Inner { int a; float2 b; };
struct Outer { Inner in; float arr[2]; };
kernel void k(device Outer *o [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    Inner i = {1, {2.0f, 3.0f}};
    Outer x = {i, {4.0f}};
    Outer y = Outer{};
    Inner z = Inner{5};
    y.in = z;
    o[tid] = tid > 1 ? x : y;
}
