#define V(a, b) a ## #b
#define OBJ x ## y
#define N(a) __VA_ARGS__ a
#if +1 == 1 && (1 ? (1 ? 1 : 0) : 0)
V(L, q) OBJ N(z)
#endif extra
#ifdef OBJ junk
'\t' '\r' '\a' '\b' '\f' '\v'
#endif
#undef OBJ junk
#include <metal_stdlib> junk
