constant float weights[3] = {0.25f, 0.5f, 0.25f};
constant int2 offsets[2][2] = {{int2(0, 1), int2(1, 0)}, {int2(-1, 0), int2(0, -1)}};
constexpr constant uint TILE = 16;
constant constexpr float PI = 3.14159265f;
static constant int limit = TILE * 2;
constexpr int cube(int x) { return x * x * x; }
static_assert(cube(2) == 8, "cube works");
static_assert(sizeof(float4) == 16);
kernel void k(device float *p [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    constexpr int local = cube(3);
    static_assert(local == 27, "local");
    p[tid] = weights[tid % 3] * PI + offsets[0][1].x + local + limit;
}
