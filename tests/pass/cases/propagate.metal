// Rule 1 of the fold pass: locals that hold one constant on every path to a read.
#include <metal_stdlib>
using namespace metal;

// a helper's parameter is a local initialised from its argument after inlining
static int scaled(int radix, int x) { return radix * 3 + x; }

// folds: n and m are constants at their reads; the helper's radix too
kernel void from_init(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    int n = 4;
    int m = n * 3;
    out[gid] = m + scaled(n, int(gid));
}

// folds: k is assigned once before its read (no initializer)
kernel void assigned_once(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    int k;
    k = 7;
    out[gid] = k;
}

// folds: both arms give 5. Must not fold j: the arms disagree
kernel void both_arms(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    int k;
    int j = 1;
    if (gid > 3) { k = 5; j = 2; } else { k = 5; }
    out[gid] = k + j;
}

// must not fold: a's address is taken, so a write through p may change it
kernel void address_taken(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    int a = 3;
    thread int* p = &a;
    if (gid > 1) *p = 4;
    out[gid] = a;
}

// must not fold x inside the loop (it is 1 only on the first iteration) nor after it;
// c is never written in the loop and folds everywhere
kernel void assigned_in_loop(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    int x = 1;
    int c = 10;
    for (uint i = 0; i < gid; i++) {
        out[i] = x + c;
        x = 2;
    }
    out[gid] = x + c;
}

// copies: a reads as b while neither changes. Must not: c after b changes; x after the
// block that declares t (the copy it held ends there)
kernel void copies(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    int b = int(gid) * 3;
    int a = b;
    out[0] = a + 1;
    int c = b;
    b = b + 1;
    out[1] = c;
    out[2] = b;
    int x = 0;
    if (gid > 2) {
        int t = int(gid) * 2;
        x = t;
        out[3] = x;
    }
    out[4] = x;
}
