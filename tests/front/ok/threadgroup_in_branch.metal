// threadgroup variables declared inside an if of the kernel (MLX's sort.h does, Apple's compiler
// takes it): each is one variable of the threadgroup, as at the kernel's top; a constant passed
// to a `const constant T&` parameter gets a program-scope constant to point to
#include <metal_stdlib>
using namespace metal;
constant constexpr const int zero_helper = 0;
static float pick(const constant int& off, threadgroup float* t, uint l) { return t[l + off]; }
template <bool TWO>
kernel void k(device float *o [[buffer(0)]], uint l [[thread_position_in_threadgroup]]) {
    if (TWO) {
        threadgroup float a[32];
        a[l] = float(l);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        o[l] = pick(zero_helper, a, 31 - l);
    } else {
        threadgroup float a[32];
        a[l] = 2.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        o[l] = a[31 - l];
    }
}
template [[host_name("k2")]] kernel void k<true>(device float*, uint);
