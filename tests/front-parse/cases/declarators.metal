kernel void k(device float *p [[buffer(0)]], device int * const q [[buffer(1)]],
              constant float4x4 &m [[buffer(2)]], device float * device *pp [[buffer(3)]]) {
    float arr[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    float grid[2][3];
    thread float &r = arr[0];
    thread float *tp = &arr[1];
    const thread float *ctp = tp;
    float a = 1.0f, *b = &a, c[2] = {a, a};
    unsigned u = 1u;
    unsigned int ui = 2u;
    unsigned char uc = 3;
    signed char sc = -1;
    long long ll = 5;
    unsigned long long ull = 6;
    short int si = 7;
    unsigned short us = 8;
    int x(5), y{6}, z = {7};
    float4 v1(1.0f), v2{1.0f, 2.0f, 3.0f, 4.0f};
    grid[1][2] = r + *tp + *ctp + c[1] + v1.x + v2.w;
}
