// scopes with many names: past eight symbols a scope is hashed; lookups, shadowing,
// overloads and redefinitions must behave as with a handful of names
#include <metal_stdlib>
using namespace metal;

constant int g0 = 1;
constant int g1 = 2;
constant int g2 = 3;
constant int g3 = 4;
constant int g4 = 5;
constant int g5 = 6;
constant int g6 = 7;
constant int g7 = 8;
constant int g8 = 9;
constant int g9 = 10;
constant int g10 = 11;
constant int g11 = 12;
float pick(float x) { return x + 1.0f; }
int pick(int x) { return x * 2; }
namespace ns {
constant int h0 = 100;
constant int h1 = 101;
constant int h2 = 102;
constant int h3 = 103;
constant int h4 = 104;
constant int h5 = 105;
constant int h6 = 106;
constant int h7 = 107;
constant int h8 = 108;
constant int h9 = 109;
int g3() { return h9; }   // a function named like a global outside ns
}

kernel void many(device float* out [[buffer(0)]], device int* iout [[buffer(1)]],
                 uint tid [[thread_position_in_grid]]) {
    float a0 = float(tid) + 0.0f;
    float a1 = float(tid) + 1.0f;
    float a2 = float(tid) + 2.0f;
    float a3 = float(tid) + 3.0f;
    float a4 = float(tid) + 4.0f;
    float a5 = float(tid) + 5.0f;
    float a6 = float(tid) + 6.0f;
    float a7 = float(tid) + 7.0f;
    float a8 = float(tid) + 8.0f;
    float a9 = float(tid) + 9.0f;
    float a10 = float(tid) + 10.0f;
    float a11 = float(tid) + 11.0f;
    float a12 = float(tid) + 12.0f;
    float a13 = float(tid) + 13.0f;
    float a14 = float(tid) + 14.0f;
    float a15 = float(tid) + 15.0f;
    float a16 = float(tid) + 16.0f;
    float a17 = float(tid) + 17.0f;
    float a18 = float(tid) + 18.0f;
    float a19 = float(tid) + 19.0f;
    float a20 = float(tid) + 20.0f;
    float a21 = float(tid) + 21.0f;
    float a22 = float(tid) + 22.0f;
    float a23 = float(tid) + 23.0f;
    float a24 = float(tid) + 24.0f;
    float a25 = float(tid) + 25.0f;
    float a26 = float(tid) + 26.0f;
    float a27 = float(tid) + 27.0f;
    float a28 = float(tid) + 28.0f;
    float a29 = float(tid) + 29.0f;
    float a30 = float(tid) + 30.0f;
    float a31 = float(tid) + 31.0f;
    float a32 = float(tid) + 32.0f;
    float a33 = float(tid) + 33.0f;
    float a34 = float(tid) + 34.0f;
    float a35 = float(tid) + 35.0f;
    float a36 = float(tid) + 36.0f;
    float a37 = float(tid) + 37.0f;
    float a38 = float(tid) + 38.0f;
    float a39 = float(tid) + 39.0f;
    float s = a0 + a39;          // first and last of the hashed scope
    {
        float a5 = 50.0f;        // shadows a5 in this block only
        int g7 = -7;             // shadows the global g7
        s += a5 + float(g7);
    }
    s += a5 + float(g7);         // the outer a5 and the global g7 again
    out[tid] = pick(s);
    iout[tid] = pick(g11) + ns::h0 + ns::g3();
}
