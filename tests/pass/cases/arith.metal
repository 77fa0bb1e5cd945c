// Rule 2 of the fold pass: folding with the backends' run-time semantics.
#include <metal_stdlib>
using namespace metal;

// folds, wrapping in the width of each type
kernel void wraps(device int* i32 [[buffer(0)]], device uint* u32 [[buffer(1)]],
                  device short* i16 [[buffer(2)]], device ushort* u16 [[buffer(3)]],
                  device char* i8 [[buffer(4)]], device long* i64 [[buffer(5)]]) {
    int big = 2147483647;
    i32[0] = big + 1;
    i32[1] = -big - 2;
    i32[2] = big * 2;
    uint zero = 0;
    u32[0] = zero - 1u;
    u32[1] = 0x80000000u * 2u;
    short s = 32767;
    i16[0] = s + short(1);
    ushort us = 0;
    u16[0] = us - ushort(1);
    u16[1] = ~us;
    char c = 127;
    i8[0] = c + char(1);
    long l = 9223372036854775807;
    i64[0] = l + 1;
}

// folds: division, remainder and shifts in range; comparisons signed and unsigned
kernel void in_range(device int* i32 [[buffer(0)]], device uint* u32 [[buffer(1)]],
                     device bool* b [[buffer(2)]]) {
    int a = -7, d = 2;
    i32[0] = a / d;
    i32[1] = a % d;
    i32[2] = a >> 1;
    uint sh = 31;
    u32[0] = 1u << sh;
    u32[1] = 0xffffffffu >> sh;
    int m1 = -1;
    uint um1 = 0xffffffffu;
    b[0] = m1 < 0;
    b[1] = um1 < 1u;
    b[2] = m1 == -1 && um1 > 5u;
}

// must not fold: division and remainder by zero, the signed MIN / -1, shifts by the
// width or more and by a negative amount (the backends decide those at run time)
kernel void left_alone(device int* i32 [[buffer(0)]], device uint* u32 [[buffer(1)]]) {
    int zero = 0, minus_one = -1, min = -2147483647 - 1, w = 32, neg = -1;
    i32[0] = 7 / zero;
    i32[1] = 7 % zero;
    i32[2] = min / minus_one;
    i32[3] = min % minus_one;
    i32[4] = 1 << w;
    i32[5] = 1 << neg;
    uint uzero = 0;
    u32[0] = 7u / uzero;
    u32[1] = 1u >> 40u;
}

// folds float comparisons, negation and exact conversions; float arithmetic and inexact
// conversions stay
kernel void floats(device float* f [[buffer(0)]], device int* i [[buffer(1)]],
                   device bool* b [[buffer(2)]], uint gid [[thread_position_in_grid]]) {
    float x = 1.5f;
    f[0] = x * 2.0f;
    f[1] = -x;
    int exact = 16777216, inexact = 16777217;
    f[2] = float(exact);
    f[3] = float(inexact);
    i[0] = int(x);
    float y = -2.75f, big = 3.0e9f;
    i[1] = int(y);
    i[2] = int(big);
    b[0] = x < 2.0f;
    b[1] = bool(x);
    half h = 0.5h;
    f[4] = float(h);
    i[3] = (x > 1.0f) ? int(gid) : 9;
}
