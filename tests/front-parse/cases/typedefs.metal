typedef float real;
typedef unsigned int u32, *u32_ptr;
using vec3 = float3;
using counter_t = atomic<uint>;
typedef struct { int x; } Anon;
kernel void k(device real *r [[buffer(0)]], device counter_t *c [[buffer(1)]]) {
    real x = r[0];
    vec3 v = vec3(x);
    u32 n = 3;
    typedef int local_int;
    local_int li = 4;
    using local_alias = half;
    local_alias la = 1.0h;
    r[1] = v.x + n + li + la;
}
