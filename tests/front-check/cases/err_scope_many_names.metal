// redefinitions found in hashed scopes (more than eight names)
#include <metal_stdlib>
using namespace metal;

constant int g0 = 0;
constant int g1 = 1;
constant int g2 = 2;
constant int g3 = 3;
constant int g4 = 4;
constant int g5 = 5;
constant int g6 = 6;
constant int g7 = 7;
constant int g8 = 8;
constant int g9 = 9;
constant int g4 = 40;                  // redefinition at program scope
kernel void many(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
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
    float a2 = 0.0f;                     // redefinition of an early name
    {
        float a2 = 1.0f;                 // fine: an inner scope
        out[tid] = a2 + a19;
    }
    float a19 = 2.0f;                    // redefinition of the newest name
}
