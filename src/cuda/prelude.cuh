// ---- enigma CUDA prelude: Metal's types and built-ins for generated kernels --------------
// Every kernel emit.c writes starts with this text. Inside `namespace metal` the MSL type
// names (float4, half, uint, packed_float3 ...) mean Metal's types with Metal's layout, so
// the generated code reads like the kernel it came from. Helpers are named en_*.
//
// The Metal model on CUDA (emit.c says how kernels use it):
//   threadgroup = block (launched 1-D: driver.c), SIMD group = warp, lane = threadIdx.x & 31.
//   SIMD and quad functions take the active mask of their call site (__activemask()) and act
//   on exactly those lanes, as Metal's do in divergent code.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace metal {

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef long long mlong; // MSL long is 64-bit
typedef unsigned long long ulong;
typedef __half half;
typedef __nv_bfloat16 bfloat;

// ---- numeric traits ------------------------------------------------------------------
template <class T> struct en_traits { static const bool is_float = false; static const bool is_lowp = false; };
template <> struct en_traits<float> { static const bool is_float = true; static const bool is_lowp = false; };
template <> struct en_traits<__half> { static const bool is_float = true; static const bool is_lowp = true; };
template <> struct en_traits<__nv_bfloat16> { static const bool is_float = true; static const bool is_lowp = true; };
template <class T> struct en_unsigned { typedef T type; };
template <> struct en_unsigned<signed char> { typedef unsigned char type; };
template <> struct en_unsigned<short> { typedef unsigned short type; };
template <> struct en_unsigned<int> { typedef unsigned int type; };
template <> struct en_unsigned<long long> { typedef unsigned long long type; };
template <class T> struct en_signed_t { static const bool value = T(-1) < T(0); };
template <class A, class B> struct en_is_same { static const bool value = false; };
template <class A> struct en_is_same<A, A> { static const bool value = true; };

// ---- conversions: Metal's rules (float to integer truncates; half/bfloat go through float)
template <class To> struct en_conv {
    template <class F> __device__ static __forceinline__ To from(F x) { return (To)x; }
    __device__ static __forceinline__ To from(__half x) { return (To)__half2float(x); }
    __device__ static __forceinline__ To from(__nv_bfloat16 x) { return (To)__bfloat162float(x); }
};
template <> struct en_conv<bool> {
    template <class F> __device__ static __forceinline__ bool from(F x) { return x != F(0); }
    __device__ static __forceinline__ bool from(__half x) { return __half2float(x) != 0.0f; }
    __device__ static __forceinline__ bool from(__nv_bfloat16 x) { return __bfloat162float(x) != 0.0f; }
};
template <> struct en_conv<__half> {
    template <class F> __device__ static __forceinline__ __half from(F x) { return __float2half_rn((float)x); }
    __device__ static __forceinline__ __half from(__half x) { return x; }
    __device__ static __forceinline__ __half from(__nv_bfloat16 x) { return __float2half_rn(__bfloat162float(x)); }
};
template <> struct en_conv<__nv_bfloat16> {
    template <class F> __device__ static __forceinline__ __nv_bfloat16 from(F x) { return __float2bfloat16_rn((float)x); }
    __device__ static __forceinline__ __nv_bfloat16 from(__half x) { return __float2bfloat16_rn(__half2float(x)); }
    __device__ static __forceinline__ __nv_bfloat16 from(__nv_bfloat16 x) { return x; }
};
template <class To, class F> __device__ __forceinline__ To en_cvt(F x) { return en_conv<To>::from(x); }
__device__ __forceinline__ float en_f(float x) { return x; }
__device__ __forceinline__ float en_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float en_f(__nv_bfloat16 x) { return __bfloat162float(x); }

// as_type<T>(x): the same bits seen as another type of the same size
template <class To, class F> __device__ __forceinline__ To en_bitcast(F x) {
    static_assert(sizeof(To) == sizeof(F), "as_type needs types of one size");
    To r; memcpy(&r, &x, sizeof r); return r;
}

// ---- vectors: Metal layout (a 3-vector occupies 4 lanes unless packed) ------------------
template <class T, int N, bool Packed> struct en_vec;
template <class T, bool P> struct alignas(P ? alignof(T) : 2 * sizeof(T)) en_vec<T, 2, P> {
    typedef T elem; static const int lanes = 2;
    T x, y;
    __device__ __forceinline__ T &operator[](int i) { return i == 0 ? x : y; }
    __device__ __forceinline__ const T &operator[](int i) const { return i == 0 ? x : y; }
};
template <class T, bool P> struct alignas(P ? alignof(T) : 4 * sizeof(T)) en_vec<T, 3, P> {
    typedef T elem; static const int lanes = 3;
    T x, y, z;
    __device__ __forceinline__ T &operator[](int i) { return i == 0 ? x : i == 1 ? y : z; }
    __device__ __forceinline__ const T &operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
};
template <class T, bool P> struct alignas(P ? alignof(T) : 4 * sizeof(T)) en_vec<T, 4, P> {
    typedef T elem; static const int lanes = 4;
    T x, y, z, w;
    __device__ __forceinline__ T &operator[](int i) { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
    __device__ __forceinline__ const T &operator[](int i) const { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
};

#define EN_VEC_TYPES(T, name) \
    typedef en_vec<T, 2, false> name##2; typedef en_vec<T, 3, false> name##3; typedef en_vec<T, 4, false> name##4; \
    typedef en_vec<T, 2, true> packed_##name##2; typedef en_vec<T, 3, true> packed_##name##3; typedef en_vec<T, 4, true> packed_##name##4;
EN_VEC_TYPES(bool, bool)
EN_VEC_TYPES(signed char, char)
EN_VEC_TYPES(unsigned char, uchar)
EN_VEC_TYPES(short, short)
EN_VEC_TYPES(unsigned short, ushort)
EN_VEC_TYPES(int, int)
EN_VEC_TYPES(unsigned int, uint)
EN_VEC_TYPES(long long, long)
EN_VEC_TYPES(unsigned long long, ulong)
EN_VEC_TYPES(__half, half)
EN_VEC_TYPES(__nv_bfloat16, bfloat)
EN_VEC_TYPES(float, float)
static_assert(sizeof(float3) == 16 && alignof(float3) == 16, "MSL float3 is 16 bytes");
static_assert(sizeof(packed_float3) == 12 && alignof(packed_float3) == 4, "MSL packed_float3 is 12 bytes");
static_assert(sizeof(half3) == 8 && sizeof(half4) == 8, "MSL half3 is 8 bytes");

template <class V> struct en_is_vec { static const bool value = false; };
template <class T, int N, bool P> struct en_is_vec<en_vec<T, N, P>> { static const bool value = true; };

// T in every lane
template <class V, class S> __device__ __forceinline__ V en_splat(S s) {
    V r; typename V::elem e = en_cvt<typename V::elem>(s);
    for (int i = 0; i < V::lanes; i++) r[i] = e;
    return r;
}
// lane-wise conversion, packed or not
template <class To, class T, int N, bool P> __device__ __forceinline__ To en_cvt_vec(en_vec<T, N, P> v) {
    To r;
    for (int i = 0; i < N; i++) r[i] = en_cvt<typename To::elem>(v[i]);
    return r;
}
// en_as<To>(x): a conversion to scalar or vector type To
template <class To, class F> __device__ __forceinline__ To en_as(F x) { return en_cvt<To>(x); }
template <class To, class T, int N, bool P> __device__ __forceinline__ To en_as(en_vec<T, N, P> v) { return en_cvt_vec<To>(v); }
template <int A, int B, class V> __device__ __forceinline__ en_vec<typename V::elem, 2, false> en_swizzle(const V &v) { return {v[A], v[B]}; }
template <int A, int B, int C, class V> __device__ __forceinline__ en_vec<typename V::elem, 3, false> en_swizzle(const V &v) { return {v[A], v[B], v[C]}; }
template <int A, int B, int C, int D, class V> __device__ __forceinline__ en_vec<typename V::elem, 4, false> en_swizzle(const V &v) { return {v[A], v[B], v[C], v[D]}; }

// ---- scalar arithmetic with Metal's guarantees ------------------------------------------
// Integer results wrap in their own type (char + char is a char); division and remainder by
// zero give 0 (and INT_MIN / -1 gives INT_MIN) rather than undefined behaviour; shift counts
// are taken modulo the width, as Metal GPUs do.
template <class T> __device__ __forceinline__ T en_div(T a, T b) {
    if (en_traits<T>::is_float) return a / b;
    if (b == T(0)) return T(0);
    if (en_signed_t<T>::value && b == T(-1)) return T(typename en_unsigned<T>::type(0) - typename en_unsigned<T>::type(a));
    return T(a / b);
}
template <class T> __device__ __forceinline__ T en_rem(T a, T b) {
    if (b == T(0)) return T(0);
    if (en_signed_t<T>::value && b == T(-1)) return T(0);
    return T(a % b);
}
template <class T> __device__ __forceinline__ T en_shl(T a, T b) {
    typedef typename en_unsigned<T>::type U;
    return T(U(a) << (U(b) & U(sizeof(T) * 8 - 1)));
}
template <class T> __device__ __forceinline__ T en_shr(T a, T b) {
    typedef typename en_unsigned<T>::type U;
    return T(a >> (U(b) & U(sizeof(T) * 8 - 1)));
}
__device__ __forceinline__ float en_div(float a, float b) { return a / b; }
__device__ __forceinline__ __half en_div(__half a, __half b) { return a / b; }
__device__ __forceinline__ __nv_bfloat16 en_div(__nv_bfloat16 a, __nv_bfloat16 b) { return a / b; }
__device__ __forceinline__ float en_rem(float a, float b) { return fmodf(a, b); }

// half and bfloat arithmetic rounds after every operation, as Metal stores each result in
// the type: the _rn forms keep NVCC from contracting a multiply and an add into one fma
template <class T> __device__ __forceinline__ T en_add(T a, T b) { return T(a + b); }
template <class T> __device__ __forceinline__ T en_sub(T a, T b) { return T(a - b); }
template <class T> __device__ __forceinline__ T en_mul(T a, T b) { return T(a * b); }
__device__ __forceinline__ __half en_add(__half a, __half b) { return __hadd_rn(a, b); }
__device__ __forceinline__ __half en_sub(__half a, __half b) { return __hsub_rn(a, b); }
__device__ __forceinline__ __half en_mul(__half a, __half b) { return __hmul_rn(a, b); }
__device__ __forceinline__ __nv_bfloat16 en_add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd_rn(a, b); }
__device__ __forceinline__ __nv_bfloat16 en_sub(__nv_bfloat16 a, __nv_bfloat16 b) { return __hsub_rn(a, b); }
__device__ __forceinline__ __nv_bfloat16 en_mul(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul_rn(a, b); }

// ---- vector operators: lane-wise, comparisons give bool vectors --------------------------
#define EN_VEC_BINOP(op, expr) \
    template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> operator op(en_vec<T, N, P> a, en_vec<T, N, P> b) { \
        en_vec<T, N, P> r; for (int i = 0; i < N; i++) { T x = a[i], y = b[i]; r[i] = T(expr); } return r; } \
    template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> &operator op##=(en_vec<T, N, P> &a, en_vec<T, N, P> b) { a = a op b; return a; }
EN_VEC_BINOP(+, en_add(x, y))
EN_VEC_BINOP(-, en_sub(x, y))
EN_VEC_BINOP(*, en_mul(x, y))
EN_VEC_BINOP(/, en_div(x, y))
EN_VEC_BINOP(%, en_rem(x, y))
EN_VEC_BINOP(&, x & y)
EN_VEC_BINOP(|, x | y)
EN_VEC_BINOP(^, x ^ y)
#define EN_VEC_CMP(op) \
    template <class T, int N, bool P> __device__ __forceinline__ en_vec<bool, N, P> operator op(en_vec<T, N, P> a, en_vec<T, N, P> b) { \
        en_vec<bool, N, P> r; for (int i = 0; i < N; i++) r[i] = a[i] op b[i]; return r; }
EN_VEC_CMP(==) EN_VEC_CMP(!=) EN_VEC_CMP(<) EN_VEC_CMP(<=) EN_VEC_CMP(>) EN_VEC_CMP(>=)
EN_VEC_CMP(&&) EN_VEC_CMP(||)
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> operator-(en_vec<T, N, P> a) {
    en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = T(T(0) - a[i]); return r; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> operator~(en_vec<T, N, P> a) {
    en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = T(~a[i]); return r; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<bool, N, P> operator!(en_vec<T, N, P> a) {
    en_vec<bool, N, P> r; for (int i = 0; i < N; i++) r[i] = !a[i]; return r; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_shl(en_vec<T, N, P> a, en_vec<T, N, P> b) {
    en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = en_shl(a[i], b[i]); return r; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_shr(en_vec<T, N, P> a, en_vec<T, N, P> b) {
    en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = en_shr(a[i], b[i]); return r; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_div(en_vec<T, N, P> a, en_vec<T, N, P> b) { return a / b; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_rem(en_vec<T, N, P> a, en_vec<T, N, P> b) { return a % b; }
// c ? a : b, lane by lane when c is a bool vector
template <class C, class T> __device__ __forceinline__ T en_select_lanes(C c, T a, T b) {
    T r; for (int i = 0; i < T::lanes; i++) r[i] = c[i] ? a[i] : b[i]; return r; }

// ---- math: float functions; half and bfloat compute in float; vectors lane by lane -------
#define EN_LOWP1(fn) \
    __device__ __forceinline__ __half fn(__half a) { return __float2half_rn(fn(__half2float(a))); } \
    __device__ __forceinline__ __nv_bfloat16 fn(__nv_bfloat16 a) { return __float2bfloat16_rn(fn(__bfloat162float(a))); }
#define EN_LOWP2(fn) \
    __device__ __forceinline__ __half fn(__half a, __half b) { return __float2half_rn(fn(__half2float(a), __half2float(b))); } \
    __device__ __forceinline__ __nv_bfloat16 fn(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16_rn(fn(__bfloat162float(a), __bfloat162float(b))); }
#define EN_LOWP3(fn) \
    __device__ __forceinline__ __half fn(__half a, __half b, __half c) { return __float2half_rn(fn(__half2float(a), __half2float(b), __half2float(c))); } \
    __device__ __forceinline__ __nv_bfloat16 fn(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return __float2bfloat16_rn(fn(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c))); }
#define EN_VEC1(fn) \
    template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> fn(en_vec<T, N, P> a) { \
        en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = fn(a[i]); return r; }
#define EN_VEC2(fn) \
    template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> fn(en_vec<T, N, P> a, en_vec<T, N, P> b) { \
        en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = fn(a[i], b[i]); return r; }
#define EN_VEC3(fn) \
    template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> fn(en_vec<T, N, P> a, en_vec<T, N, P> b, en_vec<T, N, P> c) { \
        en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = fn(a[i], b[i], c[i]); return r; }
#define EN_MATH1(name, f32) \
    __device__ __forceinline__ float name(float a) { return f32(a); } EN_LOWP1(name) EN_VEC1(name)
#define EN_MATH2(name, f32) \
    __device__ __forceinline__ float name(float a, float b) { return f32(a, b); } EN_LOWP2(name) EN_VEC2(name)

EN_MATH1(en_floor, floorf) EN_MATH1(en_ceil, ceilf) EN_MATH1(en_round, roundf) EN_MATH1(en_rint, rintf)
EN_MATH1(en_trunc, truncf) EN_MATH1(en_exp, expf) EN_MATH1(en_exp2, exp2f) EN_MATH1(en_exp10, exp10f)
EN_MATH1(en_log, logf) EN_MATH1(en_log2, log2f) EN_MATH1(en_log10, log10f) EN_MATH1(en_sqrt, sqrtf)
EN_MATH1(en_rsqrt, rsqrtf) EN_MATH1(en_sin, sinf) EN_MATH1(en_cos, cosf) EN_MATH1(en_tan, tanf)
EN_MATH1(en_asin, asinf) EN_MATH1(en_acos, acosf) EN_MATH1(en_atan, atanf) EN_MATH1(en_sinh, sinhf)
EN_MATH1(en_cosh, coshf) EN_MATH1(en_tanh, tanhf) EN_MATH1(en_asinh, asinhf) EN_MATH1(en_acosh, acoshf)
EN_MATH1(en_atanh, atanhf) EN_MATH1(en_sinpi, sinpif) EN_MATH1(en_cospi, cospif) EN_MATH1(en_fabs, fabsf)
EN_MATH2(en_fmod, fmodf) EN_MATH2(en_fdim, fdimf) EN_MATH2(en_pow, powf) EN_MATH2(en_atan2, atan2f)
EN_MATH2(en_copysign, copysignf) EN_MATH2(en_fmin, fminf) EN_MATH2(en_fmax, fmaxf)
__device__ __forceinline__ float en_tanpi_f(float a) { return sinpif(a) / cospif(a); }
EN_MATH1(en_tanpi, en_tanpi_f)
__device__ __forceinline__ float en_powr_f(float a, float b) { return powf(a, b); }
EN_MATH2(en_powr, en_powr_f)
__device__ __forceinline__ float en_fract_f(float a) { return fminf(a - floorf(a), 0x1.fffffep-1f); }
EN_MATH1(en_fract, en_fract_f)
__device__ __forceinline__ float en_sign_f(float a) { return a > 0.0f ? 1.0f : a < 0.0f ? -1.0f : a == 0.0f ? a : 0.0f; }
EN_MATH1(en_sign, en_sign_f)
__device__ __forceinline__ float en_saturate_f(float a) { return fminf(fmaxf(a, 0.0f), 1.0f); }
EN_MATH1(en_saturate, en_saturate_f)
__device__ __forceinline__ float en_modf_f(float a) { float whole; return modff(a, &whole); }
EN_MATH1(en_modf, en_modf_f)
__device__ __forceinline__ float en_frexp_f(float a) { int e; return frexpf(a, &e); }
EN_MATH1(en_frexp, en_frexp_f)
__device__ __forceinline__ float en_fma(float a, float b, float c) { return fmaf(a, b, c); }
EN_LOWP3(en_fma) EN_VEC3(en_fma)
__device__ __forceinline__ float en_mad(float a, float b, float c) { return fmaf(a, b, c); }
EN_LOWP3(en_mad) EN_VEC3(en_mad)
__device__ __forceinline__ float en_mix(float x, float y, float a) { return x + (y - x) * a; }
EN_LOWP3(en_mix) EN_VEC3(en_mix)
__device__ __forceinline__ float en_step(float edge, float x) { return x < edge ? 0.0f : 1.0f; }
EN_LOWP2(en_step) EN_VEC2(en_step)
__device__ __forceinline__ float en_smoothstep(float e0, float e1, float x) {
    float t = fminf(fmaxf((x - e0) / (e1 - e0), 0.0f), 1.0f); return t * t * (3.0f - 2.0f * t); }
EN_LOWP3(en_smoothstep) EN_VEC3(en_smoothstep)
__device__ __forceinline__ float en_fclamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
EN_LOWP3(en_fclamp) EN_VEC3(en_fclamp)
// frexp's exponent and ldexp take int (vectors: int vectors)
__device__ __forceinline__ int en_frexp_exponent(float a) { int e; frexpf(a, &e); return e; }
__device__ __forceinline__ int en_frexp_exponent(__half a) { return en_frexp_exponent(__half2float(a)); }
__device__ __forceinline__ int en_frexp_exponent(__nv_bfloat16 a) { return en_frexp_exponent(__bfloat162float(a)); }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<int, N, P> en_frexp_exponent(en_vec<T, N, P> a) {
    en_vec<int, N, P> r; for (int i = 0; i < N; i++) r[i] = en_frexp_exponent(a[i]); return r; }
__device__ __forceinline__ float en_ldexp(float a, int e) { return ldexpf(a, e); }
__device__ __forceinline__ __half en_ldexp(__half a, int e) { return __float2half_rn(ldexpf(__half2float(a), e)); }
__device__ __forceinline__ __nv_bfloat16 en_ldexp(__nv_bfloat16 a, int e) { return __float2bfloat16_rn(ldexpf(__bfloat162float(a), e)); }
template <class T, int N, bool P, bool Q> __device__ __forceinline__ en_vec<T, N, P> en_ldexp(en_vec<T, N, P> a, en_vec<int, N, Q> e) {
    en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = en_ldexp(a[i], e[i]); return r; }
// classification: bool results
__device__ __forceinline__ bool en_isnan(float a) { return a != a; }
__device__ __forceinline__ bool en_isinf(float a) { return fabsf(a) == __int_as_float(0x7f800000); }
__device__ __forceinline__ bool en_isfinite(float a) { return fabsf(a) < __int_as_float(0x7f800000); }
__device__ __forceinline__ bool en_signbit(float a) { return __float_as_int(a) < 0; }
#define EN_CLASSIFY(fn) \
    __device__ __forceinline__ bool fn(__half a) { return fn(__half2float(a)); } \
    __device__ __forceinline__ bool fn(__nv_bfloat16 a) { return fn(__bfloat162float(a)); } \
    template <class T, int N, bool P> __device__ __forceinline__ en_vec<bool, N, P> fn(en_vec<T, N, P> a) { \
        en_vec<bool, N, P> r; for (int i = 0; i < N; i++) r[i] = fn(a[i]); return r; }
EN_CLASSIFY(en_isnan) EN_CLASSIFY(en_isinf) EN_CLASSIFY(en_isfinite) EN_CLASSIFY(en_signbit)
__device__ __forceinline__ bool en_all(bool a) { return a; }
__device__ __forceinline__ bool en_any(bool a) { return a; }
template <int N, bool P> __device__ __forceinline__ bool en_all(en_vec<bool, N, P> a) { bool r = true; for (int i = 0; i < N; i++) r = r && a[i]; return r; }
template <int N, bool P> __device__ __forceinline__ bool en_any(en_vec<bool, N, P> a) { bool r = false; for (int i = 0; i < N; i++) r = r || a[i]; return r; }
// geometric
template <class T, int N, bool P> __device__ __forceinline__ T en_dot(en_vec<T, N, P> a, en_vec<T, N, P> b) {
    float s = 0.0f; for (int i = 0; i < N; i++) s = fmaf(en_f(a[i]), en_f(b[i]), s); return en_cvt<T>(s); }
template <class T, int N, bool P> __device__ __forceinline__ T en_length(en_vec<T, N, P> a) { return en_cvt<T>(sqrtf(en_f(en_dot(a, a)))); }
template <class T, int N, bool P> __device__ __forceinline__ T en_distance(en_vec<T, N, P> a, en_vec<T, N, P> b) { return en_length(a - b); }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_normalize(en_vec<T, N, P> a) {
    float inv = rsqrtf(en_f(en_dot(a, a))); en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = en_cvt<T>(en_f(a[i]) * inv); return r; }
template <class T, bool P> __device__ __forceinline__ en_vec<T, 3, P> en_cross(en_vec<T, 3, P> a, en_vec<T, 3, P> b) {
    return {T(a.y * b.z - a.z * b.y), T(a.z * b.x - a.x * b.z), T(a.x * b.y - a.y * b.x)}; }
__device__ __forceinline__ float en_dot(float a, float b) { return a * b; }
__device__ __forceinline__ float en_length(float a) { return fabsf(a); }
__device__ __forceinline__ float en_distance(float a, float b) { return fabsf(a - b); }
__device__ __forceinline__ float en_normalize(float a) { return a / fabsf(a); }

// ---- generic and integer functions ----------------------------------------------------
template <class T> __device__ __forceinline__ T en_min(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ T en_max(T a, T b) { return a < b ? b : a; }
__device__ __forceinline__ float en_min(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ float en_max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ __half en_min(__half a, __half b) { return __hmin(a, b); }
__device__ __forceinline__ __half en_max(__half a, __half b) { return __hmax(a, b); }
__device__ __forceinline__ __nv_bfloat16 en_min(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16_rn(fminf(__bfloat162float(a), __bfloat162float(b))); }
__device__ __forceinline__ __nv_bfloat16 en_max(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16_rn(fmaxf(__bfloat162float(a), __bfloat162float(b))); }
EN_VEC2(en_min) EN_VEC2(en_max)
template <class T> __device__ __forceinline__ T en_clamp(T x, T lo, T hi) { return en_min(en_max(x, lo), hi); }
EN_VEC3(en_clamp)
template <class T> __device__ __forceinline__ T en_abs(T a) { return en_signed_t<T>::value && a < T(0) ? T(T(0) - a) : a; }
__device__ __forceinline__ float en_abs(float a) { return fabsf(a); }
__device__ __forceinline__ __half en_abs(__half a) { return __habs(a); }
__device__ __forceinline__ __nv_bfloat16 en_abs(__nv_bfloat16 a) { return __float2bfloat16_rn(fabsf(__bfloat162float(a))); }
EN_VEC1(en_abs)
template <class T> __device__ __forceinline__ T en_max3(T a, T b, T c) { return en_max(en_max(a, b), c); }
template <class T> __device__ __forceinline__ T en_min3(T a, T b, T c) { return en_min(en_min(a, b), c); }
template <class T> __device__ __forceinline__ T en_median3(T a, T b, T c) { return en_max(en_min(a, b), en_min(en_max(a, b), c)); }
EN_VEC3(en_max3) EN_VEC3(en_min3) EN_VEC3(en_median3)
template <class T> __device__ __forceinline__ T en_popcount(T a) {
    typedef typename en_unsigned<T>::type U; return T(sizeof(T) == 8 ? __popcll((ulong)U(a)) : __popc((uint)U(a))); }
template <class T> __device__ __forceinline__ T en_clz(T a) {
    typedef typename en_unsigned<T>::type U;
    return T(sizeof(T) == 8 ? __clzll((mlong)U(a)) : __clz((int)(uint)U(a)) - int(32 - sizeof(T) * 8)); }
template <class T> __device__ __forceinline__ T en_ctz(T a) {
    typedef typename en_unsigned<T>::type U;
    if (U(a) == 0) return T(sizeof(T) * 8);
    return T(sizeof(T) == 8 ? __ffsll((mlong)U(a)) - 1 : __ffs((int)(uint)U(a)) - 1); }
template <class T> __device__ __forceinline__ T en_reverse_bits(T a) {
    typedef typename en_unsigned<T>::type U;
    if (sizeof(T) == 8) return T(__brevll((ulong)U(a)));
    return T(__brev((uint)U(a)) >> (32 - sizeof(T) * 8)); }
template <class T> __device__ __forceinline__ T en_rotate(T a, T n) {
    typedef typename en_unsigned<T>::type U; const uint bits = sizeof(T) * 8; uint s = uint(U(n)) & (bits - 1);
    return s == 0 ? a : T(U(U(a) << s) | U(U(a) >> (bits - s))); }
template <class T> __device__ __forceinline__ T en_mulhi(T a, T b) {
    if (sizeof(T) == 8) return en_signed_t<T>::value ? T(__mul64hi((mlong)a, (mlong)b)) : T(__umul64hi((ulong)a, (ulong)b));
    if (sizeof(T) == 4) return en_signed_t<T>::value ? T(__mulhi((int)a, (int)b)) : T(__umulhi((uint)a, (uint)b));
    return T((mlong(a) * mlong(b)) >> (sizeof(T) * 8)); }
template <class T> __device__ __forceinline__ T en_mul24(T a, T b) { return T(a * b); }
template <class T> __device__ __forceinline__ T en_mad24(T a, T b, T c) { return T(a * b + c); }
template <class T> __device__ __forceinline__ T en_addsat(T a, T b) {
    if constexpr (en_signed_t<T>::value) { mlong r = (mlong)a + (mlong)b;
        if constexpr (sizeof(T) == 8) { T s = T((ulong)a + (ulong)b); if (a > 0 && b > 0 && s < 0) return T(~(ulong(1) << 63)); if (a < 0 && b < 0 && s >= 0) return T(ulong(1) << 63); return s; }
        mlong hi = (mlong)((1ull << (sizeof(T) * 8 - 1)) - 1), lo = -hi - 1; return T(r > hi ? hi : r < lo ? lo : r); }
    T s = T(a + b); return s < a ? T(~T(0)) : s; }
template <class T> __device__ __forceinline__ T en_subsat(T a, T b) {
    if constexpr (en_signed_t<T>::value) { mlong r = (mlong)a - (mlong)b;
        if constexpr (sizeof(T) == 8) { T s = T((ulong)a - (ulong)b); if (a >= 0 && b < 0 && s < 0) return T(~(ulong(1) << 63)); if (a < 0 && b > 0 && s >= 0) return T(ulong(1) << 63); return s; }
        mlong hi = (mlong)((1ull << (sizeof(T) * 8 - 1)) - 1), lo = -hi - 1; return T(r > hi ? hi : r < lo ? lo : r); }
    return a < b ? T(0) : T(a - b); }
template <class T> __device__ __forceinline__ typename en_unsigned<T>::type en_absdiff(T a, T b) {
    typedef typename en_unsigned<T>::type U; return a > b ? U(U(a) - U(b)) : U(U(b) - U(a)); }
template <class T> __device__ __forceinline__ T en_hadd(T a, T b) { return T((a >> 1) + (b >> 1) + (a & b & T(1))); }
template <class T> __device__ __forceinline__ T en_rhadd(T a, T b) { return T((a >> 1) + (b >> 1) + ((a | b) & T(1))); }
template <class T> __device__ __forceinline__ T en_extract_bits(T x, uint offset, uint bits) {
    typedef typename en_unsigned<T>::type U; const uint w = sizeof(T) * 8;
    if (bits == 0) return T(0);
    U v = U(U(x) << (w - offset - bits));
    return en_signed_t<T>::value ? T(T(v) >> (w - bits)) : T(v >> (w - bits)); }
template <class T> __device__ __forceinline__ T en_insert_bits(T base, T ins, uint offset, uint bits) {
    typedef typename en_unsigned<T>::type U; const uint w = sizeof(T) * 8;
    if (bits == 0) return base;
    U mask = U((bits >= w ? U(~U(0)) : U((U(1) << bits) - 1)) << offset);
    return T((U(base) & U(~mask)) | (U(U(ins) << offset) & mask)); }
EN_VEC1(en_popcount) EN_VEC1(en_clz) EN_VEC1(en_ctz) EN_VEC1(en_reverse_bits)
EN_VEC2(en_rotate) EN_VEC2(en_mulhi) EN_VEC2(en_mul24) EN_VEC3(en_mad24) EN_VEC2(en_addsat) EN_VEC2(en_subsat)
EN_VEC2(en_hadd) EN_VEC2(en_rhadd)
template <class T, int N, bool P> __device__ __forceinline__ en_vec<typename en_unsigned<T>::type, N, P> en_absdiff(en_vec<T, N, P> a, en_vec<T, N, P> b) {
    en_vec<typename en_unsigned<T>::type, N, P> r; for (int i = 0; i < N; i++) r[i] = en_absdiff(a[i], b[i]); return r; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_extract_bits(en_vec<T, N, P> x, uint o, uint b) {
    en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = en_extract_bits(x[i], o, b); return r; }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_insert_bits(en_vec<T, N, P> x, en_vec<T, N, P> y, uint o, uint b) {
    en_vec<T, N, P> r; for (int i = 0; i < N; i++) r[i] = en_insert_bits(x[i], y[i], o, b); return r; }

// ---- arrays with value semantics (MSL arrays of a struct copy as a whole) -------------------
template <class T, int N> struct en_array {
    T e[N];
    template <class I> __device__ __forceinline__ T &operator[](I i) { return e[i]; }
    template <class I> __device__ __forceinline__ const T &operator[](I i) const { return e[i]; }
};
// A where C holds, else B: a warpgroup kernel declares its staging arrays in the layout of
// the entry point being built (emit.c: the swizzled buffers of the wgmma form)
template <bool C, class A, class B> struct en_pick { typedef A type; };
template <class A, class B> struct en_pick<false, A, B> { typedef B type; };
// A whole vector through a pointer whose alignment the compiler could not prove (emit.c:
// "vectors at unproven addresses"): one vector access when the address is aligned as the
// vector, else byte by byte (Metal's float4 at a float's address; CUDA faults on it).
template <class V> __device__ __forceinline__ V en_vload_u(const V *p) {
    if (((size_t)p & (alignof(V) - 1)) == 0) return *p;
    V r; memcpy(&r, p, sizeof(V)); return r; }
template <class V> __device__ __forceinline__ void en_vstore_u(V *p, V v) {
    if (((size_t)p & (alignof(V) - 1)) == 0) { *p = v; return; }
    memcpy(p, &v, sizeof(V)); }
// A thread's own array (a local variable). Indexing one out of its range is undefined in
// Metal, and real kernels do it: MLX's layer_norm fills `thread_x[i]` for i from
// axis_size - lid * N_READS, negative in the threads past the row. Apple's GPUs carry on;
// a CUDA thread writing below its local frame faults or overwrites its other variables.
// Here an index out of range reaches a spare element instead (writes go nowhere visible,
// reads see what such a write left). Loops that unroll fold the test away; the checked mode
// reports the access.
template <class T, int N> struct en_private : en_array<T, N> {
    T spare;
    en_private() = default;
    __device__ __forceinline__ en_private(const en_array<T, N> &a) : en_array<T, N>(a) {}
    __device__ __forceinline__ en_private &operator=(const en_array<T, N> &a) { en_array<T, N>::operator=(a); return *this; }
    template <class I> __device__ __forceinline__ T &operator[](I i) {
        return (unsigned long long)(long long)i < (unsigned long long)N ? this->e[i] : spare; }
    template <class I> __device__ __forceinline__ const T &operator[](I i) const {
        return (unsigned long long)(long long)i < (unsigned long long)N ? this->e[i] : spare; }
};

// ---- lane numbering -------------------------------------------------------------------------
// Metal's lane m of a SIMD group is the warp's lane en_hw_of_metal(m). Normally the two are
// equal. A module that calls thread_elements() is compiled with EN_APPLE_LANES (emit.c):
// there Metal lane m is the warp lane whose tensor-core fragment holds the elements Apple's
// layout gives lane m (the simdgroup_matrix section says which those are), so the two
// layouts are one and thread_elements() is this thread's own registers. Lane m's bits
// m4 m3 m2 m1 m0 are warp lane c's bits c4 c1 c3 c2 c0. SIMD and quad functions address
// lanes and read masks in Metal's numbering through the helpers below; __activemask()
// and the masks of *_sync calls stay the warp's.
#ifdef EN_APPLE_LANES
__device__ __forceinline__ uint en_metal_of_hw(uint c) { return (c & 0x11u) | ((c & 0x2u) << 2) | ((c & 0xcu) >> 1); }
__device__ __forceinline__ uint en_hw_of_metal(uint m) { return (m & 0x11u) | ((m & 0x8u) >> 2) | ((m & 0x6u) << 1); }
// swaps the bits at positions p and p + delta for every p in sel
__device__ __forceinline__ uint en_bit_swap(uint x, uint delta, uint sel) { uint t = ((x >> delta) ^ x) & sel; return x ^ t ^ (t << delta); }
// a mask of warp lanes as a mask of Metal lanes (bit c moves to bit en_metal_of_hw(c)), and back
__device__ __forceinline__ uint en_mm(uint hw) { return en_bit_swap(en_bit_swap(hw, 2, 0x0c0c0c0cu), 4, 0x00f000f0u); }
__device__ __forceinline__ uint en_hm(uint metal) { return en_bit_swap(en_bit_swap(metal, 4, 0x00f000f0u), 2, 0x0c0c0c0cu); }
#else
__device__ __forceinline__ uint en_metal_of_hw(uint c) { return c; }
__device__ __forceinline__ uint en_hw_of_metal(uint m) { return m; }
__device__ __forceinline__ uint en_mm(uint hw) { return hw; }
__device__ __forceinline__ uint en_hm(uint metal) { return metal; }
#endif
// thread_index_in_threadgroup of the block's thread x
__device__ __forceinline__ uint en_metal_index(uint x) { return (x & ~31u) | en_metal_of_hw(x & 31u); }

// ---- where this thread is in the Metal grid ----------------------------------------------
// Blocks are launched 1-D with the dispatch's threadgroup volume (driver.c). An edge
// threadgroup of a dispatch by threads is smaller: its threads are numbered densely in
// Metal's order over the edge size (so SIMD groups are the same lanes as Metal's) and the
// surplus threads of the block leave at once. A thread that has left no longer takes part
// in __syncthreads (PTX ISA: barriers wait for non-exited threads only).
struct en_dispatch {
    uint grid[3];   // threads_per_grid, as asked
    uint group[3];  // dispatch_threads_per_threadgroup
    uint by_threads;
};
struct en_thread {
    uint l, size, group_volume;  // thread_index_in_threadgroup, threads in this group, in a full one
    uint pos[3], edge[3];        // thread_position_in_threadgroup, threads_per_threadgroup
};
__device__ __forceinline__ bool en_locate(const en_dispatch &p, en_thread &t) {
    t.l = en_metal_index(threadIdx.x);
    t.group_volume = p.group[0] * p.group[1] * p.group[2];
    if (p.group[1] == 1 && p.group[2] == 1) {
        // 1-D threadgroups (uniform): only x can have an edge (a group of height 1 always
        // fits), and the position is the index. The general path below gives the same
        // values with a division; this one keeps streaming kernels at the hand-written
        // instruction count.
        uint e = p.group[0];
        if (p.by_threads) { uint left = p.grid[0] - blockIdx.x * p.group[0]; e = left < e ? left : e; }
        t.edge[0] = e; t.edge[1] = 1; t.edge[2] = 1; t.size = e;
        t.pos[0] = t.l; t.pos[1] = 0; t.pos[2] = 0;
        return t.l < e;
    }
    const uint b[3] = {blockIdx.x, blockIdx.y, blockIdx.z};
    for (int d = 0; d < 3; d++) {
        uint e = p.group[d];
        if (p.by_threads) { uint left = p.grid[d] - b[d] * p.group[d]; e = left < e ? left : e; }
        t.edge[d] = e;
    }
    t.size = t.edge[0] * t.edge[1] * t.edge[2];
    if (t.l >= t.size) return false;
    if (t.edge[1] == 1 && t.edge[2] == 1) { t.pos[0] = t.l; t.pos[1] = 0; t.pos[2] = 0; }
    else { t.pos[0] = t.l % t.edge[0]; t.pos[1] = (t.l / t.edge[0]) % t.edge[1]; t.pos[2] = t.l / (t.edge[0] * t.edge[1]); }
    return true;
}
// en_locate for a dispatch of 1-D threadgroups (the driver's fast entry point): the same
// values as en_locate's 1-D path, without testing for it. `left` (threads from this
// group's first to the grid's end) is the index arithmetic the position attribute does
// anyway, so the edge test costs one compare; it is only trusted by threads (a grid given
// in threadgroups is never short, and its size may not fit 32 bits)
__device__ __forceinline__ bool en_locate_1d(const en_dispatch &p, en_thread &t) {
    t.l = en_metal_index(threadIdx.x);
    t.group_volume = p.group[0];
    const uint left = p.grid[0] - blockIdx.x * p.group[0];
    const uint e = p.by_threads && left < p.group[0] ? left : p.group[0];
    t.edge[0] = e; t.edge[1] = 1; t.edge[2] = 1; t.size = e;
    t.pos[0] = t.l; t.pos[1] = 0; t.pos[2] = 0;
#ifdef EN_APPLE_LANES
    return t.l < e; // the block is rounded up to whole warps (driver.c)
#else
    return !p.by_threads || t.l < left;
#endif
}
// this thread's Metal lane
__device__ __forceinline__ uint en_lane() { return en_metal_of_hw(threadIdx.x & 31u); }

// ---- moving values between lanes ------------------------------------------------------------
// any type, as 32-bit words; `mask` is the warp's active mask, src the Metal lane read from.
// A lane that reads a lane outside `mask` gets an undefined value, so callers only read
// active lanes (or discard what they read)
template <class T> __device__ __forceinline__ T en_shfl(uint mask, T v, int src) {
    const int W = (sizeof(T) + 3) / 4; uint w[W] = {}; memcpy(w, &v, sizeof(T));
    const int hw = (int)en_hw_of_metal((uint)src & 31u);
    for (int i = 0; i < W; i++) w[i] = __shfl_sync(mask, w[i], hw);
    T r; memcpy(&r, w, sizeof(T)); return r;
}
// lane_mask in Metal's numbering (a bit permutation of lanes keeps xor a xor)
template <class T> __device__ __forceinline__ T en_shfl_xor(uint mask, T v, int lane_mask) {
    const int W = (sizeof(T) + 3) / 4; uint w[W] = {}; memcpy(w, &v, sizeof(T));
    const int hw = (int)en_hw_of_metal((uint)lane_mask & 31u);
    for (int i = 0; i < W; i++) w[i] = __shfl_xor_sync(mask, w[i], hw);
    T r; memcpy(&r, w, sizeof(T)); return r;
}
// the value of Metal lane en_lane() - delta (of this lane when that is below 0)
template <class T> __device__ __forceinline__ T en_shfl_up(uint mask, T v, uint delta) {
#ifdef EN_APPLE_LANES
    return en_shfl(mask, v, (int)((en_lane() - delta) & 31u));
#else
    const int W = (sizeof(T) + 3) / 4; uint w[W] = {}; memcpy(w, &v, sizeof(T));
    for (int i = 0; i < W; i++) w[i] = __shfl_up_sync(mask, w[i], delta);
    T r; memcpy(&r, w, sizeof(T)); return r;
#endif
}
struct en_op_add { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return en_add(a, b); } };
struct en_op_mul { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return en_mul(a, b); } };
struct en_op_min { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return en_min(a, b); } };
struct en_op_max { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return en_max(a, b); } };
struct en_op_and { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a & b; } };
struct en_op_or { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a | b; } };
struct en_op_xor { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a ^ b; } };
template <class T> __device__ __forceinline__ T en_splat_like(T, int v) { return en_cvt<T>(v); }
template <class T, int N, bool P> __device__ __forceinline__ en_vec<T, N, P> en_splat_like(en_vec<T, N, P>, int v) { return en_splat<en_vec<T, N, P>>(v); }

// ---- SIMD-group reductions over the active lanes `mask` (every active lane gets the result)
// Full warp: a butterfly, so every lane combines the same values in the same tree and gets
// bit-identical results. Otherwise each lane folds the active lanes in lane order.
template <class Op, class T> __device__ __forceinline__ T en_simd_reduce(uint mask, T v, Op op) {
    if (mask == 0xffffffffu) {
        for (int o = 16; o > 0; o >>= 1) v = op(v, en_shfl_xor(mask, v, o));
        return v;
    }
    const uint mm = en_mm(mask);
    int first = __ffs(mm) - 1; T r = en_shfl(mask, v, first);
    for (uint m = mm & (mm - 1); m; m &= m - 1) r = op(r, en_shfl(mask, v, __ffs(m) - 1));
    return r;
}
#if __CUDA_ARCH__ >= 800
// integer reductions have hardware for any mask (sm_80+)
#define EN_REDUCE_HW(T, opname, hw) \
    __device__ __forceinline__ T en_simd_reduce(uint mask, T v, opname) { return (T)hw(mask, v); }
EN_REDUCE_HW(int, en_op_add, __reduce_add_sync) EN_REDUCE_HW(uint, en_op_add, __reduce_add_sync)
EN_REDUCE_HW(int, en_op_min, __reduce_min_sync) EN_REDUCE_HW(uint, en_op_min, __reduce_min_sync)
EN_REDUCE_HW(int, en_op_max, __reduce_max_sync) EN_REDUCE_HW(uint, en_op_max, __reduce_max_sync)
EN_REDUCE_HW(uint, en_op_and, __reduce_and_sync) EN_REDUCE_HW(uint, en_op_or, __reduce_or_sync)
EN_REDUCE_HW(uint, en_op_xor, __reduce_xor_sync)
__device__ __forceinline__ int en_simd_reduce(uint mask, int v, en_op_and) { return (int)__reduce_and_sync(mask, (uint)v); }
__device__ __forceinline__ int en_simd_reduce(uint mask, int v, en_op_or) { return (int)__reduce_or_sync(mask, (uint)v); }
__device__ __forceinline__ int en_simd_reduce(uint mask, int v, en_op_xor) { return (int)__reduce_xor_sync(mask, (uint)v); }
#endif
template <class T> __device__ __forceinline__ T en_simd_sum(uint m, T v) { return en_simd_reduce(m, v, en_op_add()); }
template <class T> __device__ __forceinline__ T en_simd_product(uint m, T v) { return en_simd_reduce(m, v, en_op_mul()); }
template <class T> __device__ __forceinline__ T en_simd_min(uint m, T v) { return en_simd_reduce(m, v, en_op_min()); }
template <class T> __device__ __forceinline__ T en_simd_max(uint m, T v) { return en_simd_reduce(m, v, en_op_max()); }
template <class T> __device__ __forceinline__ T en_simd_and(uint m, T v) { return en_simd_reduce(m, v, en_op_and()); }
template <class T> __device__ __forceinline__ T en_simd_or(uint m, T v) { return en_simd_reduce(m, v, en_op_or()); }
template <class T> __device__ __forceinline__ T en_simd_xor(uint m, T v) { return en_simd_reduce(m, v, en_op_xor()); }

// prefix over the active lanes below (exclusive) or up to (inclusive) this one
template <class Op, class T> __device__ __forceinline__ T en_simd_scan(uint mask, T v, Op op, bool inclusive, int identity) {
    const uint lane = en_lane();
    if (mask == 0xffffffffu) {
        T x = v;
        for (uint d = 1; d < 32; d <<= 1) { T t = en_shfl_up(mask, x, d); if (lane >= d) x = op(t, x); }
        if (inclusive) return x;
        T e = en_shfl_up(mask, x, 1);
        return lane == 0 ? en_splat_like(v, identity) : e;
    }
    T acc = en_splat_like(v, identity);
    for (uint m = en_mm(mask); m; m &= m - 1) {
        uint src = __ffs(m) - 1;
        T t = en_shfl(mask, v, src);
        if (src < lane || (inclusive && src == lane)) acc = op(acc, t);
    }
    return acc;
}
template <class T> __device__ __forceinline__ T en_simd_prefix_inclusive_sum(uint m, T v) { return en_simd_scan(m, v, en_op_add(), true, 0); }
template <class T> __device__ __forceinline__ T en_simd_prefix_exclusive_sum(uint m, T v) { return en_simd_scan(m, v, en_op_add(), false, 0); }
template <class T> __device__ __forceinline__ T en_simd_prefix_inclusive_product(uint m, T v) { return en_simd_scan(m, v, en_op_mul(), true, 1); }
template <class T> __device__ __forceinline__ T en_simd_prefix_exclusive_product(uint m, T v) { return en_simd_scan(m, v, en_op_mul(), false, 1); }

// permutes. Metal: shuffle_up/down keep their own value where the source lane is out of the
// SIMD group (no wrap); rotate wraps; reading an inactive lane is undefined in Metal, and
// here gives the lane's own value.
template <class T> __device__ __forceinline__ T en_lane_read(uint mask, T v, int src, bool in_range) {
    T t = en_shfl(mask, v, src & 31);
    return in_range && ((en_mm(mask) >> (src & 31)) & 1u) ? t : v;
}
template <class T> __device__ __forceinline__ T en_simd_shuffle(uint m, T v, uint lane) { return en_lane_read(m, v, (int)lane, lane < 32u); }
template <class T> __device__ __forceinline__ T en_simd_broadcast(uint m, T v, uint lane) { return en_lane_read(m, v, (int)lane, lane < 32u); }
template <class T> __device__ __forceinline__ T en_simd_shuffle_up(uint m, T v, uint d) { int s = (int)en_lane() - (int)d; return en_lane_read(m, v, s, s >= 0); }
template <class T> __device__ __forceinline__ T en_simd_shuffle_down(uint m, T v, uint d) { int s = (int)en_lane() + (int)d; return en_lane_read(m, v, s, s < 32); }
template <class T> __device__ __forceinline__ T en_simd_shuffle_xor(uint m, T v, uint x) { int s = (int)(en_lane() ^ x); return en_lane_read(m, v, s, s < 32); }
template <class T> __device__ __forceinline__ T en_simd_shuffle_rotate_up(uint m, T v, uint d) { return en_lane_read(m, v, (int)((en_lane() - d) & 31u), true); }
template <class T> __device__ __forceinline__ T en_simd_shuffle_rotate_down(uint m, T v, uint d) { return en_lane_read(m, v, (int)((en_lane() + d) & 31u), true); }
// and_fill: within segments of `modulo` lanes, lanes whose source runs off the segment take
// `fill` from the other end of the segment (Metal spec, simd_shuffle_and_fill_up/down)
template <class T> __device__ __forceinline__ T en_and_fill(uint m, T data, T fill, uint lane, uint delta, uint modulo, bool up) {
    uint base = lane & ~(modulo - 1u), j = lane - base;
    bool from_data = up ? j >= delta : j + delta < modulo;
    uint src = up ? (from_data ? lane - delta : lane - delta + modulo) : (from_data ? lane + delta : lane + delta - modulo);
    T d = en_shfl(m, data, (int)(src & 31u)), f = en_shfl(m, fill, (int)(src & 31u));
    bool active = (en_mm(m) >> (src & 31u)) & 1u;
    return from_data ? (active ? d : data) : (active ? f : fill);
}
template <class T> __device__ __forceinline__ T en_simd_shuffle_and_fill_up(uint m, T data, T fill, uint delta, uint modulo = 32) { return en_and_fill(m, data, fill, en_lane(), delta, modulo, true); }
template <class T> __device__ __forceinline__ T en_simd_shuffle_and_fill_down(uint m, T data, T fill, uint delta, uint modulo = 32) { return en_and_fill(m, data, fill, en_lane(), delta, modulo, false); }
template <class T> __device__ __forceinline__ T en_simd_broadcast_first(uint m, T v) { return en_shfl(m, v, __ffs(en_mm(m)) - 1); }
__device__ __forceinline__ ulong en_simd_ballot(uint m, bool p) { return (ulong)en_mm(__ballot_sync(m, p)); }
__device__ __forceinline__ bool en_simd_all(uint m, bool p) { return __all_sync(m, p) != 0; }
__device__ __forceinline__ bool en_simd_any(uint m, bool p) { return __any_sync(m, p) != 0; }
__device__ __forceinline__ bool en_simd_is_first(uint m) { return en_lane() == (uint)(__ffs(en_mm(m)) - 1); }
__device__ __forceinline__ ulong en_simd_active_threads_mask(uint m) { return (ulong)en_mm(m); }

// ---- quad-group functions: the same over the 4 lanes of this lane's quad ---------------------
__device__ __forceinline__ uint en_quad_base() { return en_lane() & ~3u; }
__device__ __forceinline__ uint en_quad_mask(uint m) { return (en_mm(m) >> en_quad_base()) & 0xfu; }
template <class Op, class T> __device__ __forceinline__ T en_quad_reduce(uint mask, T v, Op op) {
    if (en_quad_mask(mask) == 0xfu) {
        // every lane of a full quad exchanges with its partners; other quads may be partial,
        // so each shuffle names only this quad's lanes
        uint qm = en_hm(0xfu << en_quad_base());
        v = op(v, en_shfl_xor(qm, v, 1)); return op(v, en_shfl_xor(qm, v, 2));
    }
    uint qm = en_quad_mask(mask) << en_quad_base(), hq = en_hm(qm);
    T r = en_shfl(hq, v, __ffs(qm) - 1);
    for (uint m = qm & (qm - 1); m; m &= m - 1) r = op(r, en_shfl(hq, v, __ffs(m) - 1));
    return r;
}
template <class Op, class T> __device__ __forceinline__ T en_quad_scan(uint mask, T v, Op op, bool inclusive, int identity) {
    uint qm = en_quad_mask(mask) << en_quad_base(), lane = en_lane();
    T acc = en_splat_like(v, identity);
    for (uint m = qm; m; m &= m - 1) {
        uint src = __ffs(m) - 1; T t = en_shfl(en_hm(qm), v, src);
        if (src < lane || (inclusive && src == lane)) acc = op(acc, t);
    }
    return acc;
}
template <class T> __device__ __forceinline__ T en_quad_sum(uint m, T v) { return en_quad_reduce(m, v, en_op_add()); }
template <class T> __device__ __forceinline__ T en_quad_product(uint m, T v) { return en_quad_reduce(m, v, en_op_mul()); }
template <class T> __device__ __forceinline__ T en_quad_min(uint m, T v) { return en_quad_reduce(m, v, en_op_min()); }
template <class T> __device__ __forceinline__ T en_quad_max(uint m, T v) { return en_quad_reduce(m, v, en_op_max()); }
template <class T> __device__ __forceinline__ T en_quad_and(uint m, T v) { return en_quad_reduce(m, v, en_op_and()); }
template <class T> __device__ __forceinline__ T en_quad_or(uint m, T v) { return en_quad_reduce(m, v, en_op_or()); }
template <class T> __device__ __forceinline__ T en_quad_xor(uint m, T v) { return en_quad_reduce(m, v, en_op_xor()); }
template <class T> __device__ __forceinline__ T en_quad_prefix_inclusive_sum(uint m, T v) { return en_quad_scan(m, v, en_op_add(), true, 0); }
template <class T> __device__ __forceinline__ T en_quad_prefix_exclusive_sum(uint m, T v) { return en_quad_scan(m, v, en_op_add(), false, 0); }
template <class T> __device__ __forceinline__ T en_quad_prefix_inclusive_product(uint m, T v) { return en_quad_scan(m, v, en_op_mul(), true, 1); }
template <class T> __device__ __forceinline__ T en_quad_prefix_exclusive_product(uint m, T v) { return en_quad_scan(m, v, en_op_mul(), false, 1); }
template <class T> __device__ __forceinline__ T en_quad_shuffle(uint m, T v, uint l) { return en_lane_read(m, v, (int)(en_quad_base() + l), l < 4u); }
template <class T> __device__ __forceinline__ T en_quad_broadcast(uint m, T v, uint l) { return en_lane_read(m, v, (int)(en_quad_base() + l), l < 4u); }
template <class T> __device__ __forceinline__ T en_quad_shuffle_up(uint m, T v, uint d) { int j = (int)(en_lane() & 3u) - (int)d; return en_lane_read(m, v, (int)en_quad_base() + j, j >= 0); }
template <class T> __device__ __forceinline__ T en_quad_shuffle_down(uint m, T v, uint d) { int j = (int)(en_lane() & 3u) + (int)d; return en_lane_read(m, v, (int)en_quad_base() + j, j < 4); }
template <class T> __device__ __forceinline__ T en_quad_shuffle_xor(uint m, T v, uint x) { int j = (int)((en_lane() & 3u) ^ x); return en_lane_read(m, v, (int)en_quad_base() + j, j < 4); }
template <class T> __device__ __forceinline__ T en_quad_shuffle_rotate_up(uint m, T v, uint d) { return en_lane_read(m, v, (int)(en_quad_base() + ((en_lane() - d) & 3u)), true); }
template <class T> __device__ __forceinline__ T en_quad_shuffle_rotate_down(uint m, T v, uint d) { return en_lane_read(m, v, (int)(en_quad_base() + ((en_lane() + d) & 3u)), true); }
template <class T> __device__ __forceinline__ T en_quad_shuffle_and_fill_up(uint m, T data, T fill, uint delta, uint modulo = 4) { return en_and_fill(m, data, fill, en_lane(), delta, modulo, true); }
template <class T> __device__ __forceinline__ T en_quad_shuffle_and_fill_down(uint m, T data, T fill, uint delta, uint modulo = 4) { return en_and_fill(m, data, fill, en_lane(), delta, modulo, false); }
template <class T> __device__ __forceinline__ T en_quad_broadcast_first(uint m, T v) { uint qm = en_quad_mask(m) << en_quad_base(); return en_shfl(m, v, __ffs(qm) - 1); }
__device__ __forceinline__ ulong en_quad_ballot(uint m, bool p) { return (ulong)((en_mm(__ballot_sync(m, p)) >> en_quad_base()) & 0xfu); }
__device__ __forceinline__ bool en_quad_all(uint m, bool p) { return ((en_mm(__ballot_sync(m, p)) >> en_quad_base()) & 0xfu) == en_quad_mask(m); }
__device__ __forceinline__ bool en_quad_any(uint m, bool p) { return ((en_mm(__ballot_sync(m, p)) >> en_quad_base()) & 0xfu) != 0; }
__device__ __forceinline__ bool en_quad_is_first(uint m) { return en_lane() == (uint)(__ffs(en_quad_mask(m) << en_quad_base()) - 1); }
__device__ __forceinline__ ulong en_quad_active_threads_mask(uint m) { return (ulong)en_quad_mask(m); }

// ---- atomics: relaxed, the width of the object --------------------------------------------
typedef int atomic_int;
typedef uint atomic_uint;
typedef float atomic_float;
typedef bool atomic_bool;
typedef ulong atomic_ulong;
template <class T> __device__ __forceinline__ T en_atomic_load(T *p) { return *(volatile T *)p; }
template <class T, class V> __device__ __forceinline__ void en_atomic_store(T *p, V v) { *(volatile T *)p = (T)v; }
// bool objects are one byte: they are updated through their aligned 32-bit word
__device__ __forceinline__ bool en_atomic_byte_cas(bool *p, bool expected, bool desired, bool *old) {
    uint *word = (uint *)((size_t)p & ~(size_t)3); uint shift = ((uint)(size_t)p & 3u) * 8u;
    uint cur = *(volatile uint *)word;
    for (;;) {
        bool now = ((cur >> shift) & 0xffu) != 0;
        if (now != expected) { *old = now; return false; }
        uint next = (cur & ~(0xffu << shift)) | ((uint)desired << shift);
        uint seen = atomicCAS(word, cur, next);
        if (seen == cur) { *old = now; return true; }
        cur = seen;
    }
}
__device__ __forceinline__ int en_atomic_exchange(int *p, int v) { return atomicExch(p, v); }
__device__ __forceinline__ uint en_atomic_exchange(uint *p, uint v) { return atomicExch(p, v); }
__device__ __forceinline__ float en_atomic_exchange(float *p, float v) { return atomicExch(p, v); }
__device__ __forceinline__ ulong en_atomic_exchange(ulong *p, ulong v) { return atomicExch(p, v); }
__device__ __forceinline__ bool en_atomic_exchange(bool *p, bool v) {
    bool old; while (!en_atomic_byte_cas(p, en_atomic_load(p), v, &old)) {} return old; }
template <class V> __device__ __forceinline__ void en_atomic_store(bool *p, V v) { en_atomic_exchange(p, (bool)v); }
// compare-exchange compares bits (as C11 does) and writes the seen value back on failure
template <class T> __device__ __forceinline__ bool en_atomic_compare_exchange(T *p, T *expected, T desired) {
    if constexpr (sizeof(T) == 4) {
        uint e = en_bitcast<uint>(*expected), seen = atomicCAS((uint *)p, e, en_bitcast<uint>(desired));
        if (seen == e) return true;
        *expected = en_bitcast<T>(seen); return false;
    } else {
        ulong e = en_bitcast<ulong>(*expected), seen = atomicCAS((ulong *)p, e, en_bitcast<ulong>(desired));
        if (seen == e) return true;
        *expected = en_bitcast<T>(seen); return false;
    }
}
__device__ __forceinline__ bool en_atomic_compare_exchange(bool *p, bool *expected, bool desired) {
    bool old; bool ok = en_atomic_byte_cas(p, *expected, desired, &old); if (!ok) *expected = old; return ok; }
// the operand converts to the object's type (the object's type decides the instruction)
template <class T, class V> __device__ __forceinline__ T en_atomic_fetch_add(T *p, V v) { return atomicAdd(p, (T)v); }
template <class T, class V> __device__ __forceinline__ T en_atomic_fetch_sub(T *p, V v) { return atomicSub(p, (T)v); }
template <class V> __device__ __forceinline__ float en_atomic_fetch_sub(float *p, V v) { return atomicAdd(p, -(float)v); }
template <class V> __device__ __forceinline__ ulong en_atomic_fetch_sub(ulong *p, V v) { return atomicAdd(p, (ulong)0 - (ulong)v); }
template <class T, class V> __device__ __forceinline__ T en_atomic_fetch_min(T *p, V v) { return atomicMin(p, (T)v); }
template <class T, class V> __device__ __forceinline__ T en_atomic_fetch_max(T *p, V v) { return atomicMax(p, (T)v); }
template <class T, class V> __device__ __forceinline__ T en_atomic_fetch_and(T *p, V v) { return atomicAnd(p, (T)v); }
template <class T, class V> __device__ __forceinline__ T en_atomic_fetch_or(T *p, V v) { return atomicOr(p, (T)v); }
template <class T, class V> __device__ __forceinline__ T en_atomic_fetch_xor(T *p, V v) { return atomicXor(p, (T)v); }

// ---- barriers -------------------------------------------------------------------------------
// threadgroup_barrier: the block barrier orders threadgroup memory; mem_device adds a fence
// so device-memory writes before it are seen by the group's threads after it
#define EN_BARRIER_DEVICE() do { __threadfence(); __syncthreads(); } while (0)
#define EN_BARRIER() __syncthreads()
// the block's barrier where its warps may reach it from different code (a quad's loops per
// copier role, emit.c): __syncthreads is bar.sync, which PTX defines as barrier.sync.aligned,
// whose threads must all execute the same instruction; barrier.sync without .aligned counts
// each warp's arrival wherever it is (PTX ISA, "barrier"), with the same memory ordering
#define EN_BARRIER_DIVERGENT() asm volatile("barrier.sync 0;\n" ::: "memory")

// ---- simdgroup_matrix on tensor cores ---------------------------------------------------------
// Storage: lane c of the warp holds row c/4, columns 2(c%4) and 2(c%4)+1 of the 8x8 matrix (in
// row-major order: elements 2c and 2c+1). That is the fragment of mma.sync (PTX ISA, "Matrix
// Fragments for mma.m16n8k8/m16n8k16") for an A operand and for a float accumulator: an 8x8
// matrix is the top half of an m16n8 tile, so a multiply passes the registers as they are.
// The B operand wants the transpose (lane c: column c/4, rows 2(c%4) and 2(c%4)+1), which
// movmatrix.trans makes in one instruction for 16-bit elements (two for 32-bit ones).
// Metal's own layout (what thread_elements() shows) differs: in a module that calls
// thread_elements() the SIMD-group lanes are numbered so that Metal's lane m is the warp's
// lane holding the elements Apple puts in lane m (EN_APPLE_LANES below), which makes the two
// layouts one. Elsewhere no code can tell which lane holds what.
// Arithmetic: half and bfloat operands of one type multiply on tensor cores with float
// accumulation (mma.sync ... .f32.f16.f16.f32 / .bf16); anything with a float operand (or two
// different 16-bit types) goes through TF32 tensor cores as 3xTF32 (each float split into a
// TF32 high part and a TF32 remainder; big*big + big*small + small*big), which keeps float
// accuracy (about 2^-21 relative per product; plain TF32 is 2^-11). Defining
// ENIGMA_MATRIX_TF32 (an NVRTC option: -DENIGMA_MATRIX_TF32) trades that for one TF32 multiply.
// The result is rounded to the destination's element type once, at the end, as before.
// B layout: a 16-bit matrix that a kernel only loads and uses as the b of 16-bit multiplies
// is held as mma.sync's B fragment instead (en_matrix_b, chosen per variable by emit.c:
// matrix_pairs.c), loaded transposed by ldmatrix.trans, and no multiply transposes it.
template <class T> struct en_matrix { en_vec<T, 2, false> v; }; // this lane's 2 of the 64 elements
template <class T> struct en_matrix_b { en_vec<T, 2, false> v; }; // ... in the B layout where EN_MMA is defined
typedef en_matrix<float> simdgroup_float8x8;
typedef en_matrix<__half> simdgroup_half8x8;
typedef en_matrix<__nv_bfloat16> simdgroup_bfloat8x8;
template <class T, class S> __device__ __forceinline__ en_matrix<T> en_matrix_fill(S v) {
    en_matrix<T> r; r.v.x = r.v.y = en_cvt<T>(v); return r; }

// two elements of a row from p, p + 1: one access when the pair is aligned as a vec<P, 2>
template <class P> __device__ __forceinline__ en_vec<P, 2, false> en_pair_load(const P *p, bool aligned) {
    if (aligned) return *(const en_vec<P, 2, false> *)p;
    en_vec<P, 2, false> r; r.x = p[0]; r.y = p[1]; return r;
}
// (the aligned pair as one store instruction: written as a vector store in C++, nvcc merged
// the two branches into two scalar stores, which doubled a GEMM epilogue's global stores)
template <class P> __device__ __forceinline__ void en_pair_store(P *p, P x, P y, bool aligned) {
    if (aligned) {
        if constexpr (sizeof(P) == 4) {
            unsigned a, b;
            memcpy(&a, &x, 4); memcpy(&b, &y, 4);
            asm volatile("st.v2.b32 [%0], {%1, %2};\n" ::"l"(p), "r"(a), "r"(b) : "memory");
        } else {
            en_vec<P, 2, false> r; r.x = x; r.y = y; *(en_vec<P, 2, false> *)p = r;
        }
        return;
    }
    p[0] = x; p[1] = y;
}
// the lane's pairs all start on a multiple of 2 elements: aligned when the origin is
__device__ __forceinline__ bool en_pairs_aligned(const void *origin, ulong elements_per_row, size_t size) {
    return ((size_t)origin % (2 * size)) == 0 && (elements_per_row & 1u) == 0;
}
__device__ __forceinline__ uint en_hw_lane() { return threadIdx.x & 31u; }

// AL: what the compiler proved about the addresses (emit.c, from align.c): EN_ALIGNED_NONE
// (tested here, at run time), EN_ALIGNED_PAIRS (each lane's pair is aligned as a vec<P, 2>),
// EN_ALIGNED_ROWS (also: rows start on 16 bytes of threadgroup memory, so ldmatrix reads them)
enum { EN_ALIGNED_NONE = 0, EN_ALIGNED_PAIRS = 1, EN_ALIGNED_ROWS = 2 };
template <class T, int AL = EN_ALIGNED_NONE, class P>
__device__ __forceinline__ en_matrix<T> en_matrix_load(const P *src, ulong elements_per_row, ulong2 origin, bool transpose) {
    const uint lane = en_hw_lane(), row = lane >> 2, col = (lane & 3u) * 2;
    const P *base = src + origin.y * elements_per_row + origin.x;
    en_matrix<T> r;
#if __CUDA_ARCH__ >= 750
    // a 16-bit matrix, transposed, from 16-byte rows of threadgroup memory: ldmatrix.trans
    // (one instruction for what is otherwise two 16-bit loads a lane; untransposed, one
    // 32-bit load a lane is as good and the compiler can schedule it)
    if (sizeof(P) == 2 && sizeof(T) == 2 && transpose &&
        (AL == EN_ALIGNED_ROWS || (AL == EN_ALIGNED_NONE && __isShared(base) && ((size_t)base & 15u) == 0 &&
                                   ((elements_per_row * 2) & 15u) == 0))) {
        uint addr = (uint)__cvta_generic_to_shared(base + (lane & 7u) * elements_per_row), x;
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(addr));
        en_vec<P, 2, false> px; memcpy(&px, &x, 4);
        r.v.x = en_cvt<T>(px.x); r.v.y = en_cvt<T>(px.y);
        return r;
    }
#endif
    if (!transpose) {
        en_vec<P, 2, false> x = en_pair_load(base + row * elements_per_row + col,
                                             AL != EN_ALIGNED_NONE || en_pairs_aligned(base, elements_per_row, sizeof(P)));
        r.v.x = en_cvt<T>(x.x); r.v.y = en_cvt<T>(x.y);
        return r;
    }
    r.v.x = en_cvt<T>(base[col * elements_per_row + row]);
    r.v.y = en_cvt<T>(base[(col + 1) * elements_per_row + row]);
    return r;
}
template <int AL = EN_ALIGNED_NONE, class T, class P>
__device__ __forceinline__ void en_matrix_store(en_matrix<T> m, P *dst, ulong elements_per_row, ulong2 origin, bool transpose) {
    const uint lane = en_hw_lane(), row = lane >> 2, col = (lane & 3u) * 2;
    P *base = dst + origin.y * elements_per_row + origin.x;
    if (!transpose) {
        en_pair_store(base + row * elements_per_row + col, en_cvt<P>(m.v.x), en_cvt<P>(m.v.y),
                      AL != EN_ALIGNED_NONE || en_pairs_aligned(base, elements_per_row, sizeof(P)));
        return;
    }
    base[col * elements_per_row + row] = en_cvt<P>(m.v.x);
    base[(col + 1) * elements_per_row + row] = en_cvt<P>(m.v.y);
}

// d = a * b + c on the FMA units, for GPUs without the tensor-core shapes used below: every
// lane gathers the row of a and the columns of b it needs through shuffles
template <class A, class B> __device__ __forceinline__ float2 en_mma_fma(en_matrix<A> a, en_matrix<B> b, float2 acc) {
    const uint mask = __activemask(), lane = en_hw_lane(), row = lane >> 2, col = (lane & 3u) * 2;
    for (uint k = 0; k < 8; k++) {
        // a[row][k] lives in lane row*4 + k/2, slot k%2; b[k][col], b[k][col+1] in lane k*4 + col/2
        float a0 = en_f(__shfl_sync(mask, (k & 1) ? a.v.y : a.v.x, (int)(row * 4 + k / 2)));
        float b0 = en_f(__shfl_sync(mask, b.v.x, (int)(k * 4 + col / 2)));
        float b1 = en_f(__shfl_sync(mask, b.v.y, (int)(k * 4 + col / 2)));
        acc.x = fmaf(a0, b0, acc.x); acc.y = fmaf(a0, b1, acc.y);
    }
    return acc;
}

#if __CUDA_ARCH__ >= 800
#define EN_MMA 1
// the pair of a 16-bit matrix as one register (element 0 in the low half)
template <class T> __device__ __forceinline__ uint en_bits2(en_matrix<T> m) {
    static_assert(sizeof(T) == 2, "16-bit elements"); uint r; memcpy(&r, &m.v, 4); return r; }
// the transpose of a 16-bit 8x8 matrix in the same layout. Not volatile: the compiler may
// share one among the multiplies that use the same b
__device__ __forceinline__ uint en_movmatrix_t(uint x) {
    uint y; asm("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x)); return y; }
// ... of a 32-bit one: the low and the high halves of the elements are two 16-bit matrices
__device__ __forceinline__ void en_movmatrix_t32(float x, float y, uint &tx, uint &ty) {
    uint ux = __float_as_uint(x), uy = __float_as_uint(y);
    uint lo = en_movmatrix_t(__byte_perm(ux, uy, 0x5410)), hi = en_movmatrix_t(__byte_perm(ux, uy, 0x7632));
    tx = __byte_perm(lo, hi, 0x5410); ty = __byte_perm(lo, hi, 0x7632);
}
// m16n8k8 with 16-bit operands: a0 rows 0-7 and a1 rows 8-15 of A, b the B fragment;
// d0, d1 are rows 0-7 of D and d2, d3 rows 8-15
template <class T> struct en_mma16;
template <> struct en_mma16<__half> {
    __device__ static __forceinline__ void k8(float d[4], uint a0, uint a1, uint b, const float c[4]) {
        asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a0), "r"(a1), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])); }
    __device__ static __forceinline__ void k16(float d[4], const uint a[4], uint b0, uint b1, const float c[4]) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1),
              "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])); }
};
template <> struct en_mma16<__nv_bfloat16> {
    __device__ static __forceinline__ void k8(float d[4], uint a0, uint a1, uint b, const float c[4]) {
        asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a0), "r"(a1), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])); }
    __device__ static __forceinline__ void k16(float d[4], const uint a[4], uint b0, uint b1, const float c[4]) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1),
              "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])); }
};
// m16n8k8 with TF32 operands. Its A fragment holds columns t and t+4 of row g in lane 4g+t
// (B: rows t and t+4 of column g); feeding it columns 2t and 2t+1 instead (B: rows 2t, 2t+1)
// permutes k the same way in both operands, which leaves the dot products as they are
__device__ __forceinline__ void en_mma_tf32(float d[4], const uint a[4], uint b0, uint b1, const float c[4]) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1),
          "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
// x as a TF32 high part and a TF32 remainder (0 when x is not finite, so inf stays inf)
__device__ __forceinline__ void en_tf32_split(float x, uint &big, uint &small) {
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(big) : "f"(x));
    float rest = x - __uint_as_float(big);
    rest = fabsf(rest) <= 3.0e38f ? rest : 0.0f;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(small) : "f"(rest));
}
#endif

// b as mma.sync's B fragment (one register of two 16-bit elements), and as Metal's layout
#ifdef EN_MMA
template <class T> __device__ __forceinline__ uint en_b_fragment(en_matrix<T> b) { return en_movmatrix_t(en_bits2(b)); }
template <class T> __device__ __forceinline__ uint en_b_fragment(en_matrix_b<T> b) {
    static_assert(sizeof(T) == 2, "16-bit elements"); uint r; memcpy(&r, &b.v, 4); return r; }
#endif
template <class T> __device__ __forceinline__ en_matrix<T> en_metal_layout(en_matrix<T> b) { return b; }
#ifndef EN_MMA
template <class T> __device__ __forceinline__ en_matrix<T> en_metal_layout(en_matrix_b<T> b) { en_matrix<T> r; r.v = b.v; return r; }
#endif
template <class T> struct en_elem_of;
template <class T> struct en_elem_of<en_matrix<T>> { typedef T type; };
template <class T> struct en_elem_of<en_matrix_b<T>> { typedef T type; };

// a simdgroup_load into the B layout: the fragment of the loaded matrix (of its transpose when
// `transpose`), read by ldmatrix(.trans) from 16-byte rows of threadgroup memory, or loaded in
// Metal's layout and transposed by movmatrix
template <class T, int AL = EN_ALIGNED_NONE, class P>
__device__ __forceinline__ en_matrix_b<T> en_matrix_load_b(const P *src, ulong elements_per_row, ulong2 origin, bool transpose) {
    en_matrix_b<T> r;
#ifdef EN_MMA
    const P *base = src + origin.y * elements_per_row + origin.x;
    if (sizeof(P) == 2 && sizeof(T) == 2 &&
        (AL == EN_ALIGNED_ROWS || (AL == EN_ALIGNED_NONE && __isShared(base) && ((size_t)base & 15u) == 0 &&
                                   ((elements_per_row * 2) & 15u) == 0))) {
        uint addr = (uint)__cvta_generic_to_shared(base + (en_hw_lane() & 7u) * elements_per_row), x;
        if (transpose) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(addr));
        else asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(addr));
        en_vec<P, 2, false> px; memcpy(&px, &x, 4);
        r.v.x = en_cvt<T>(px.x); r.v.y = en_cvt<T>(px.y);
        return r;
    }
    uint x = en_b_fragment(en_matrix_load<T, AL>(src, elements_per_row, origin, transpose));
    memcpy(&r.v, &x, 4);
#else
    r.v = en_matrix_load<T, AL>(src, elements_per_row, origin, transpose).v;
#endif
    return r;
}

// four 16-bit matrices whose rows start on 16 bytes of threadgroup memory (EN_ALIGNED_ROWS, as
// emit.c proved) in one ldmatrix.x4: lanes 8q to 8q+7 give the addresses of matrix q's rows.
// Metal's layout is ldmatrix's own (.trans for a transposed load); the B layout the other way.
template <bool B_LAYOUT, class M, class P>
__device__ __forceinline__ void en_ldmatrix_x4(M &d0, M &d1, M &d2, M &d3, const P *s0, const P *s1, const P *s2, const P *s3,
                                               ulong elements_per_row, ulong2 origin, bool transpose) {
    static_assert(sizeof(P) == 2 && sizeof(d0.v) == 4, "16-bit matrices");
    const uint lane = en_hw_lane();
    const P *s = lane & 16u ? (lane & 8u ? s3 : s2) : (lane & 8u ? s1 : s0);
    uint addr = (uint)__cvta_generic_to_shared(s + (origin.y + (lane & 7u)) * elements_per_row + origin.x), x[4];
    if (transpose != B_LAYOUT)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(addr));
    memcpy(&d0.v, &x[0], 4); memcpy(&d1.v, &x[1], 4); memcpy(&d2.v, &x[2], 4); memcpy(&d3.v, &x[3], 4);
}
template <class T, class P>
__device__ __forceinline__ void en_matrix_load_x4(en_matrix<T> &d0, en_matrix<T> &d1, en_matrix<T> &d2, en_matrix<T> &d3,
                                                  const P *s0, const P *s1, const P *s2, const P *s3,
                                                  ulong elements_per_row, ulong2 origin, bool transpose) {
#if __CUDA_ARCH__ >= 750
    if constexpr (en_is_same<T, P>::value) { en_ldmatrix_x4<false>(d0, d1, d2, d3, s0, s1, s2, s3, elements_per_row, origin, transpose); return; }
#endif
    d0 = en_matrix_load<T, EN_ALIGNED_ROWS>(s0, elements_per_row, origin, transpose);
    d1 = en_matrix_load<T, EN_ALIGNED_ROWS>(s1, elements_per_row, origin, transpose);
    d2 = en_matrix_load<T, EN_ALIGNED_ROWS>(s2, elements_per_row, origin, transpose);
    d3 = en_matrix_load<T, EN_ALIGNED_ROWS>(s3, elements_per_row, origin, transpose);
}
template <class T, class P>
__device__ __forceinline__ void en_matrix_load_b_x4(en_matrix_b<T> &d0, en_matrix_b<T> &d1, en_matrix_b<T> &d2, en_matrix_b<T> &d3,
                                                    const P *s0, const P *s1, const P *s2, const P *s3,
                                                    ulong elements_per_row, ulong2 origin, bool transpose) {
#ifdef EN_MMA
    if constexpr (en_is_same<T, P>::value) { en_ldmatrix_x4<true>(d0, d1, d2, d3, s0, s1, s2, s3, elements_per_row, origin, transpose); return; }
#endif
    d0 = en_matrix_load_b<T, EN_ALIGNED_ROWS>(s0, elements_per_row, origin, transpose);
    d1 = en_matrix_load_b<T, EN_ALIGNED_ROWS>(s1, elements_per_row, origin, transpose);
    d2 = en_matrix_load_b<T, EN_ALIGNED_ROWS>(s2, elements_per_row, origin, transpose);
    d3 = en_matrix_load_b<T, EN_ALIGNED_ROWS>(s3, elements_per_row, origin, transpose);
}

// a1 * b + c[0..1] and a2 * b + c[2..3] as one 16x8x8 tile: a1 gives rows 0-7, a2 rows 8-15
template <class A, class BM> __device__ __forceinline__ void en_mma2(en_matrix<A> a1, en_matrix<A> a2, BM b, float c[4], float d[4]) {
    typedef typename en_elem_of<BM>::type B;
#ifdef EN_MMA
    if constexpr (sizeof(A) == 2 && en_is_same<A, B>::value) {
        en_mma16<A>::k8(d, en_bits2(a1), en_bits2(a2), en_b_fragment(b), c);
    } else {
        static_assert(en_is_same<BM, en_matrix<B>>::value, "the B layout is for 16-bit multiplies");
        uint big1[2], small1[2], big2[2], small2[2], bt[2], bb[2], bs[2];
        en_tf32_split(en_f(a1.v.x), big1[0], small1[0]); en_tf32_split(en_f(a1.v.y), big1[1], small1[1]);
        en_tf32_split(en_f(a2.v.x), big2[0], small2[0]); en_tf32_split(en_f(a2.v.y), big2[1], small2[1]);
        en_movmatrix_t32(en_f(b.v.x), en_f(b.v.y), bt[0], bt[1]);
        en_tf32_split(__uint_as_float(bt[0]), bb[0], bs[0]); en_tf32_split(__uint_as_float(bt[1]), bb[1], bs[1]);
        const uint a_big[4] = {big1[0], big2[0], big1[1], big2[1]};
#ifndef ENIGMA_MATRIX_TF32
        const uint a_small[4] = {small1[0], small2[0], small1[1], small2[1]};
        en_mma_tf32(c, a_small, bb[0], bb[1], c);
        en_mma_tf32(c, a_big, bs[0], bs[1], c);
#endif
        en_mma_tf32(d, a_big, bb[0], bb[1], c);
    }
#else
    float2 top = en_mma_fma(a1, en_metal_layout(b), float2{c[0], c[1]}), bottom = en_mma_fma(a2, en_metal_layout(b), float2{c[2], c[3]});
    d[0] = top.x; d[1] = top.y; d[2] = bottom.x; d[3] = bottom.y;
#endif
}
// two K steps, a1 * b + a1k * bk + c[0..1] and a2 * b + a2k * bk + c[2..3], as one 16x8x16
// tile (16-bit operands of one type): K 0-7 from a1, a2, b and K 8-15 from a1k, a2k, bk
template <class A, class BM> __device__ __forceinline__ void en_mma2k(en_matrix<A> a1, en_matrix<A> a2, en_matrix<A> a1k, en_matrix<A> a2k,
                                                                     BM b, BM bk, float c[4], float d[4]) {
#ifdef EN_MMA
    static_assert(sizeof(A) == 2 && en_is_same<A, typename en_elem_of<BM>::type>::value, "16-bit operands of one type");
    const uint a[4] = {en_bits2(a1), en_bits2(a2), en_bits2(a1k), en_bits2(a2k)};
    en_mma16<A>::k16(d, a, en_b_fragment(b), en_b_fragment(bk), c);
#else
    float t[4];
    en_mma2(a1, a2, b, c, t);
    en_mma2(a1k, a2k, bk, t, d);
#endif
}
// one 8x8x8 product into float accumulators (rows 8-15 of the tile unused)
template <class A, class BM> __device__ __forceinline__ float2 en_mma(en_matrix<A> a, BM b, float2 acc) {
    float c[4] = {acc.x, acc.y, 0.0f, 0.0f}, d[4];
    en_matrix<A> none; none.v.x = none.v.y = en_cvt<A>(0);
    en_mma2(a, none, b, c, d);
    return float2{d[0], d[1]};
}
template <class D, class A, class BM> __device__ __forceinline__ en_matrix<D> en_matrix_multiply(en_matrix<A> a, BM b) {
    float2 d = en_mma(a, b, float2{0.0f, 0.0f});
    en_matrix<D> r; r.v.x = en_cvt<D>(d.x); r.v.y = en_cvt<D>(d.y); return r;
}
template <class D, class A, class BM, class C> __device__ __forceinline__ en_matrix<D> en_matrix_multiply_accumulate(en_matrix<A> a, BM b, en_matrix<C> c) {
    float2 d = en_mma(a, b, float2{en_f(c.v.x), en_f(c.v.y)});
    en_matrix<D> r; r.v.x = en_cvt<D>(d.x); r.v.y = en_cvt<D>(d.y); return r;
}
// d1 = a1 * b + c1 and d2 = a2 * b + c2 in one instruction (emit.c pairs them: matrix_pairs.c)
template <class D1, class D2, class A, class BM, class C1, class C2>
__device__ __forceinline__ void en_matrix_multiply_accumulate2(en_matrix<D1> &d1, en_matrix<D2> &d2, en_matrix<A> a1, en_matrix<A> a2,
                                                               BM b, en_matrix<C1> c1, en_matrix<C2> c2) {
    float c[4] = {en_f(c1.v.x), en_f(c1.v.y), en_f(c2.v.x), en_f(c2.v.y)}, d[4];
    en_mma2(a1, a2, b, c, d);
    d1.v.x = en_cvt<D1>(d[0]); d1.v.y = en_cvt<D1>(d[1]); d2.v.x = en_cvt<D2>(d[2]); d2.v.y = en_cvt<D2>(d[3]);
}
// ... and the next K step of both, d1 = a1 * b + a1k * bk + c1 (d2 likewise), as one
// m16n8k16 (matrix_pairs.c joins the two steps). Rounded to D once, after both steps: the
// steps' sum is one reassociation of the float sums (exact for float accumulators).
template <class D1, class D2, class A, class BM, class C1, class C2>
__device__ __forceinline__ void en_matrix_multiply_accumulate2k(en_matrix<D1> &d1, en_matrix<D2> &d2, en_matrix<A> a1, en_matrix<A> a2,
                                                                en_matrix<A> a1k, en_matrix<A> a2k, BM b, BM bk,
                                                                en_matrix<C1> c1, en_matrix<C2> c2) {
    float c[4] = {en_f(c1.v.x), en_f(c1.v.y), en_f(c2.v.x), en_f(c2.v.y)}, d[4];
    en_mma2k(a1, a2, a1k, a2k, b, bk, c, d);
    d1.v.x = en_cvt<D1>(d[0]); d1.v.y = en_cvt<D1>(d[1]); d2.v.x = en_cvt<D2>(d[2]); d2.v.y = en_cvt<D2>(d[3]);
}
// one matrix's two K steps, d = a * b + ak * bk + c (rows 8-15 of the tile unused)
template <class D, class A, class BM, class C>
__device__ __forceinline__ void en_matrix_multiply_accumulate1k(en_matrix<D> &d1, en_matrix<A> a, en_matrix<A> ak, BM b, BM bk, en_matrix<C> c1) {
    en_matrix<A> none; none.v.x = none.v.y = en_cvt<A>(0);
    float c[4] = {en_f(c1.v.x), en_f(c1.v.y), 0.0f, 0.0f}, d[4];
    en_mma2k(a, none, ak, none, b, bk, c, d);
    d1.v.x = en_cvt<D>(d[0]); d1.v.y = en_cvt<D>(d[1]);
}

// ---- a threadgroup GEMM on one Hopper warpgroup: wgmma (wgmma.c, emit.c) -------------------
// A staging buffer by its 32-bit address in the shared window: emit.c takes each staging
// array's once, before the kernel's body (en_smem_of), so the copies' places and the MMAs'
// descriptors in the K loop are that address plus offsets (from generic pointers nvcc
// recomputed the window's base at every step).
struct en_smem { unsigned a; };
__device__ __forceinline__ en_smem en_smem_of(const void *p) { return en_smem{(unsigned)__cvta_generic_to_shared(p)}; }
__device__ __forceinline__ en_smem operator+(en_smem s, unsigned bytes) { return en_smem{s.a + bytes}; }
// A quad (wgmma_merge.c): four threadgroups of 128 threads, 2x2 in the grid, as one block of
// 512 (EN_WG 2; the other entry points have EN_WG 0 or 1 and a block per threadgroup). The
// block's threads are the quad's threadgroups one after another, q = x + 2 y; the driver
// launches it for threadgroups of 128 threads, an even number along x and y, none at an edge.
template <int EN_WG> __device__ __forceinline__ ::uint3 en_wg_group_position() {
    if constexpr (EN_WG == 2)
        return ::make_uint3(2u * blockIdx.x + ((threadIdx.x >> 7) & 1u), 2u * blockIdx.y + (threadIdx.x >> 8), blockIdx.z);
    else
        return ::make_uint3(blockIdx.x, blockIdx.y, blockIdx.z);
}
template <int EN_WG> __device__ __forceinline__ ::uint3 en_wg_groups() {
    return EN_WG == 2 ? ::make_uint3(2u * gridDim.x, 2u * gridDim.y, gridDim.z) : ::make_uint3(gridDim.x, gridDim.y, gridDim.z);
}
// en_locate for a threadgroup of a quad: whole 1-D groups of 128
__device__ __forceinline__ bool en_locate_quad(en_thread &t) {
    t.l = threadIdx.x & 127u;
    t.group_volume = t.size = 128u;
    t.edge[0] = 128u; t.edge[1] = 1; t.edge[2] = 1;
    t.pos[0] = t.l; t.pos[1] = 0; t.pos[2] = 0;
    return true;
}
// A quad's staging (EN_WG 2) is the block's dynamic shared memory from its first 1024-byte
// boundary (the swizzle modes' alignment; driver.c gives 1 KB more): that boundary as a
// generic pointer, and as a shared-window address in `aligned` (constants of the kernel)
__device__ __forceinline__ unsigned char *en_wg_quad_memory(unsigned &aligned) {
    extern __shared__ __align__(16) unsigned char en_quad_shared[];
    const unsigned start = (unsigned)__cvta_generic_to_shared(en_quad_shared);
    aligned = start + ((1024u - (start & 1023u)) & 1023u);
    return en_quad_shared + (aligned - start);
}
// A staging array Q of a quad's threadgroup: at offset in that memory; elsewhere the static
// array of its own.
template <int EN_WG, class Q, class Own> __device__ __forceinline__ auto &en_wg_staging(Own &own, unsigned offset) {
    if constexpr (EN_WG == 2) {
        unsigned aligned;
        return *reinterpret_cast<Q *>(en_wg_quad_memory(aligned) + offset);
    } else {
        return own;
    }
}
// ... and its shared-window address (from the window address itself, not the generic pointer,
// so the copies' places and the descriptors fold to offsets from a constant)
template <int EN_WG, class Own> __device__ __forceinline__ en_smem en_wg_staging_smem(Own &own, unsigned offset) {
    if constexpr (EN_WG == 2) {
        unsigned aligned;
        (void)en_wg_quad_memory(aligned);
        return en_smem{aligned + offset};
    } else {
        return en_smem_of(&own);
    }
}
// Which threadgroup of a quad fills a staging array the quad shares (SHARE, internal.h
// EN_WG_SHARED_*): along x (a row's two threadgroups stage the same bytes: A), the one on
// the quad's diagonal, x == y; along y (B), the other one, x != y, so that each of the four
// fills one array; shared by all four, threadgroup 0. Outside a quad, each its own.
template <int EN_WG, int SHARE> __device__ __forceinline__ bool en_wg_copier(unsigned q) {
    if constexpr (EN_WG != 2) return true;
    else if constexpr (SHARE == 1) return (q & 1u) == (q >> 1);
    else if constexpr (SHARE == 2) return (q & 1u) != (q >> 1);
    else return q == 0;
}
// Compiled for sm_90a (nvrtc.c) a kernel that wgmma.c proved a 64x64 GEMM runs its multiply
// nest as wgmma.mma_async.m64n64k16 (PTX ISA "Asynchronous Warpgroup Level Matrix
// Instructions") when its threadgroup is exactly one warpgroup; elsewhere, as before.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define EN_WGMMA 1
// Staging arrays: element (r, c) of an array read as rows of ROW 16-bit elements sits in the
// 8x8 core matrix (r/8, c/8), 128 contiguous bytes of 8 rows of 16 bytes (no swizzle). Core
// (r/8, c/8) starts at byte (r/8) ROW 16 + (c/8) CS: a block of 8 rows keeps its size, and
// each 16-byte chunk (8 elements of a row from a multiple of 8) stays 16 contiguous bytes.
// CS (emit.c, wg_core_stride) is 128 bytes, or more where the row's padding leaves room: the
// CORES cores of a block row then start at different 16-byte offsets modulo 128, so that the
// 8 chunk stores of a quarter warp (consecutive chunks of a row, or of two or four rows) fall
// in 8 different groups of 4 banks instead of one. Columns from CORES 8 on (the padding) are
// read by no multiply (wgmma.c: the arrays are named only by chunk stores and the nest's
// loads), so their stores are dropped.
// A (rows M, K contiguous: K-major): K-adjacent cores CS apart (leading byte offset),
// M-adjacent ones ROW 16 B (stride byte offset). B (rows K, N contiguous: MN-major, the
// instruction's imm-trans-b = 1): K-adjacent cores ROW 16 B apart (leading), N-adjacent CS
// (stride) (PTX ISA, "Canonical Layouts": ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))).
// The two staging layouts (the cores here, the swizzled rows below) as a place for each
// element: at (bytes into the buffer) and whether any multiply reads it (padding columns and
// rows past the tile are read by none, so what goes there is dropped).
template <int ROW, int CORES, int CS> struct en_wg_cores {
    static __device__ __forceinline__ bool place(unsigned e, unsigned &at) {
        const unsigned r = e / ROW, c = e % ROW;
        at = (r >> 3) * (ROW * 16) + (c >> 3) * CS + (r & 7) * 16 + (c & 7) * 2;
        return (c >> 3) < CORES;
    }
};
// a chunk store: 16 bytes at element e of a staging buffer laid out as L; where e is not on a
// chunk of the layout (8 elements from a multiple of 8, which the 16-byte alignment of the
// store gives), element by element. (An element offset of a threadgroup array fits 32 bits:
// the division by the row length stays 32-bit.)
template <class L, class V> __device__ __forceinline__ void en_wg_store_in(en_smem base, long long e, V v) {
    static_assert(sizeof(V) == 16, "a 16-byte chunk");
    const unsigned u = (unsigned)e;
    unsigned at;
    if ((u & 7) == 0) {
        unsigned w[4];
        memcpy(w, &v, 16);
        if (L::place(u, at))
            asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(base.a + at), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
                         : "memory");
        return;
    }
    unsigned short h[8];
    memcpy(h, &v, 16);
    for (int i = 0; i < 8; i++)
        if (L::place(u + i, at)) asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(base.a + at), "h"(h[i]) : "memory");
}
// A next-slice chunk load and the chunk store it fed, as one asynchronous copy issued at the
// load (wgmma_copy.c proves the place free and the register unused otherwise; wgmma_pipe.c
// copies a store's own load): the 16 bytes at src to chunk e's place, by cp.async where src
// is 16-byte aligned and e a whole chunk; else loaded and stored here. Elements no multiply
// reads are not copied. en_wg_copy_wait before each barrier.
// 16 bytes at src to the shared-window address dst, asynchronously (the one cp.async of the copies)
__device__ __forceinline__ void en_wg_cp_async16(unsigned dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
template <class L, class V> __device__ __forceinline__ void en_wg_copy_in(en_smem base, long long e, const V *src) {
    static_assert(sizeof(V) == 16, "a 16-byte chunk");
    const unsigned u = (unsigned)e;
    unsigned at;
    if ((u & 7) == 0 && ((size_t)src & 15) == 0) {
        if (!L::place(u, at)) return;
        en_wg_cp_async16(base.a + at, src);
        return;
    }
    en_wg_store_in<L>(base, e, en_vload_u(src));
}
// A steady copy (wgmma_pipe.c, plan->copy_steady: each thread's chunks keep their places and
// their sources' address modulo 16 from step to step): the slices before the loop note whether
// each of this thread's chunks is whole, at a place some multiply reads and from a 16-byte
// aligned source (en_wg_copy_note_in), and where every thread's are (__syncthreads_and) the
// block runs the loop whose copies test nothing (en_wg_copy_untested_in): the same cp.async
// without the branches, which let nvcc keep a thread's chunks together.
template <class L, class V> __device__ __forceinline__ void en_wg_copy_note_in(en_smem base, long long e, const V *src, bool &ok) {
    unsigned at;
    ok = ok && ((unsigned)e & 7) == 0 && ((size_t)src & 15) == 0 && L::place((unsigned)e, at);
    en_wg_copy_in<L>(base, e, src);
}
template <class L, class V> __device__ __forceinline__ void en_wg_copy_untested_in(en_smem base, long long e, const V *src) {
    static_assert(sizeof(V) == 16, "a 16-byte chunk");
    unsigned at;
    (void)L::place((unsigned)e, at);
    en_wg_cp_async16(base.a + at, src);
}
template <int ROW, int CORES, int CS, class V> __device__ __forceinline__ void en_wg_store(en_smem base, long long e, V v) {
    en_wg_store_in<en_wg_cores<ROW, CORES, CS>>(base, e, v);
}
template <int ROW, int CORES, int CS, class V> __device__ __forceinline__ void en_wg_copy(en_smem base, long long e, const V *src) {
    en_wg_copy_in<en_wg_cores<ROW, CORES, CS>>(base, e, src);
}
__device__ __forceinline__ void en_wg_copy_wait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// the copies issued since the last commit as one group; wait until at most N groups are in
// flight (a quad's pipeline: wgmma_merge.c)
__device__ __forceinline__ void en_wg_copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void en_wg_copy_wait_group() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
// a shared-memory matrix descriptor: start address, leading and stride byte offsets, and
// the swizzle (bits 62-63: 0 none, 1 128-byte, 2 64-byte, 3 32-byte)
// (Shared addresses are below 2^18 (228 KB an SM): the start field, address / 16, fits 14 bits,
// so adding the other fields equals or-ing them; from the start already / 16, a k16 step's
// descriptor is the step's first one plus a constant.)
__device__ __forceinline__ unsigned long long en_wg_desc16(unsigned start16, unsigned lead, unsigned stride,
                                                           unsigned swizzle = 0) {
    return (unsigned long long)(start16 + ((lead >> 4) << 16)) | ((unsigned long long)((stride & 0x3FFFFu) >> 4) << 32) |
           ((unsigned long long)swizzle << 62);
}
// Swizzled staging (the default; wgmma.c, emit.c): each row the multiplies read keeps its RB
// bytes together (RB = 16 x its 8-element chunks: 32, 64 or 128), rows back to back, and
// chunk j of row r sits at chunk j ^ ((r % 8) / (8 / (RB / 16))): the XOR of address bits
// 4.. with bits 7.. that wgmma's RB-byte swizzle mode undoes (PTX ISA, "Shared Memory Matrix
// Layout": the swizzle pattern repeats every 8 RB bytes, so a buffer starts on 1024 bytes).
// A row's 16-byte chunks stay in one RB-byte run, as in global memory, which a copy straight
// from global memory (cp.async) needs, and a quarter warp's 8 chunk stores (a row, or two or
// four rows) cover 128 contiguous bytes: no bank conflict. ROW is the kernel's row length in
// elements, ROWS the rows the multiplies read; other rows and the padding columns are read by
// no multiply (wgmma.c), so their stores are dropped.
template <int RB> __device__ __forceinline__ unsigned en_wg_swizzled(unsigned offset) {
    return offset ^ (((offset >> 7) & (RB / 16 - 1)) << 4);
}
template <int ROW, int RB, int ROWS> struct en_wg_swizzle {
    static __device__ __forceinline__ bool place(unsigned e, unsigned &at) {
        const unsigned r = e / ROW, c = e % ROW;
        at = en_wg_swizzled<RB>(r * RB + (c >> 3) * 16) + (c & 7) * 2;
        return r < ROWS && c < RB / 2;
    }
};
template <int ROW, int RB, int ROWS, class V> __device__ __forceinline__ void en_wg_store_sw(en_smem base, long long e, V v) {
    en_wg_store_in<en_wg_swizzle<ROW, RB, ROWS>>(base, e, v);
}
template <int ROW, int RB, int ROWS, class V> __device__ __forceinline__ void en_wg_copy_sw(en_smem base, long long e, const V *src) {
    en_wg_copy_in<en_wg_swizzle<ROW, RB, ROWS>>(base, e, src);
}
template <int ROW, int RB, int ROWS, class V>
__device__ __forceinline__ void en_wg_copy_note_sw(en_smem base, long long e, const V *src, bool &ok) {
    en_wg_copy_note_in<en_wg_swizzle<ROW, RB, ROWS>>(base, e, src, ok);
}
template <int ROW, int RB, int ROWS, class V> __device__ __forceinline__ void en_wg_copy_untested_sw(en_smem base, long long e, const V *src) {
    en_wg_copy_untested_in<en_wg_swizzle<ROW, RB, ROWS>>(base, e, src);
}
// the descriptor's swizzle mode for RB-byte rows
template <int RB> __device__ __forceinline__ constexpr unsigned en_wg_swizzle_mode() {
    return RB == 128 ? 1u : RB == 64 ? 2u : 3u;
}
// keeps the compiler from moving accesses of the accumulators across the asynchronous MMA
__device__ __forceinline__ void en_wg_fence_operands(float (&d)[32]) {
#pragma unroll
    for (int i = 0; i < 32; i++) asm volatile("" : "+f"(d[i])::"memory");
}
template <bool BF16> __device__ __forceinline__ void en_wg_mma(float (&d)[32], unsigned long long a, unsigned long long b) {
    // d += A (64x16, K-major) * B (16x64, N-major); scale-d 1 (accumulate), A and B unscaled
    if (BF16)
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 1;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) : "l"(a), "l"(b), "r"(1));
    else
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 1;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) : "l"(a), "l"(b), "r"(1));
}
// one pass of the nest: d += A[0:64, 0:16 STEPS] * B[0:16 STEPS, 0:64], both staged as above.
// The fence orders the registers' earlier writes (and the barrier's view of the staging
// arrays) before the MMAs. The MMAs run on while the threads go on (the pipelined form's
// stores of the next slice into the other buffer, the global loads they wait for): nothing
// reads d or writes the buffers they read before en_wg_wait, which emit.c puts before every
// threadgroup barrier of the warpgroup form (a store into the buffers a nest reads comes
// after a barrier: wgmma.c) and after the K loop.
template <int ROW_A, int CS_A, int ROW_B, int CS_B, int STEPS, bool BF16>
__device__ __forceinline__ void en_wg_multiply(float (&d)[32], en_smem a, en_smem b) {
    __syncwarp(); // .aligned: every lane of the warp at the same instruction
    en_wg_fence_operands(d);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int t = 0; t < STEPS; t++)
        en_wg_mma<BF16>(d, en_wg_desc16((a.a >> 4) + 2 * CS_A * t / 16, CS_A, ROW_A * 16),
                        en_wg_desc16((b.a >> 4) + 2 * ROW_B * t, ROW_B * 16, CS_B));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    en_wg_fence_operands(d);
}
// the same on swizzled staging: A's rows (K-major) RB_A bytes, 8 rows apart by 8 RB_A bytes
// (stride byte offset), a k16 step 32 bytes on within the row; B's rows (K, N-major) 128
// bytes of 64 columns, 8 rows of K apart by 1024 bytes (stride byte offset), a k16 step 16
// rows on. The leading byte offsets (the next swizzle width along K for A, along N for B)
// are not used: A's rows are one width, B's 64 columns one 128-byte width.
template <int RB_A, int STEPS, bool BF16>
__device__ __forceinline__ void en_wg_multiply_sw(float (&d)[32], en_smem a, en_smem b) {
    __syncwarp(); // .aligned: every lane of the warp at the same instruction
    en_wg_fence_operands(d);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int t = 0; t < STEPS; t++)
        en_wg_mma<BF16>(d, en_wg_desc16((a.a >> 4) + 2 * t, 16, 8 * RB_A, en_wg_swizzle_mode<RB_A>()),
                        en_wg_desc16((b.a >> 4) + 128 * t, 16, 8 * 128, en_wg_swizzle_mode<128>()));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    en_wg_fence_operands(d);
}
// the MMAs issued so far are done: their reads of the staging arrays and their writes of d
__device__ __forceinline__ void en_wg_wait(float (&d)[32]) {
    __syncwarp();
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    en_wg_fence_operands(d);
}
// the MMAs issued before the last N commits are done (a quad's pipeline, wgmma_merge.c,
// leaves one step's running: N = 1)
template <int N> __device__ __forceinline__ void en_wg_wait_group(float (&d)[32]) {
    __syncwarp();
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
    en_wg_fence_operands(d);
}
// a thread's stores to shared memory, made visible to the MMAs' (async proxy) reads; before
// each barrier of the kernel
__device__ __forceinline__ void en_wg_proxy_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// The accumulators between Metal's SIMD groups and the warpgroup, through 1 KB of shared
// memory in 16 rounds (a buffer of the whole tile, 16 KB, cost threadgroups an SM): round q
// moves 4 of the tile's 8x8 blocks (block b: row b/8, column b%8), those of column q/2 in
// block rows 4 (q%2) .. 4 (q%2) + 3, block b at en_wg_scratch[(b/8) % 4], lane l's pair at
// [l] as an en_matrix holds it (row l/4, columns 2(l%4), 2(l%4)+1). A thread gives up or
// takes a few of its registers a round, so the SIMD groups' matrices and the MMA registers
// are not all live at once. Warp w's MMA registers hold rows 16w..16w+15 (PTX ISA, "Matrix
// Fragments for wgmma.m64nNk16", accumulator D): register 4j + 2h + e is row 16w + 8h + l/4,
// column 8j + 2(l%4) + e, the lane's pair of block (2w + h) 8 + j: warps 2(q%2) and
// 2(q%2)+1 take part in round q, with j = q/2.
__device__ __forceinline__ void en_wg_to_registers(float (&d)[32], ::float2 (*scratch)[32], int q) {
    const unsigned w = (threadIdx.x >> 5) & 3u, l = threadIdx.x & 31u; // the warp in its warpgroup (a quad has four)
    if ((w >> 1) != (unsigned)(q & 1)) return;
    const int j = q >> 1;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const ::float2 v = scratch[(2 * w + h) & 3u][l];
        d[4 * j + 2 * h] = v.x; d[4 * j + 2 * h + 1] = v.y;
    }
}
__device__ __forceinline__ void en_wg_from_registers(const float (&d)[32], ::float2 (*scratch)[32], int q) {
    const unsigned w = (threadIdx.x >> 5) & 3u, l = threadIdx.x & 31u; // the warp in its warpgroup (a quad has four)
    if ((w >> 1) != (unsigned)(q & 1)) return;
    const int j = q >> 1;
#pragma unroll
    for (int h = 0; h < 2; h++) scratch[(2 * w + h) & 3u][l] = ::make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
}
__device__ __forceinline__ ::float2 en_wg_pair(const en_matrix<float> &m) { return ::make_float2(m.v.x, m.v.y); }
__device__ __forceinline__ en_matrix<float> en_wg_matrix(::float2 v) { en_matrix<float> m; m.v.x = v.x; m.v.y = v.y; return m; }
// A quad whose staging memory holds four 64x64 float tiles (emit.c, emit_wg_move) moves the
// accumulators in one round each way: threadgroup q's tile at byte q * 18432 of that memory,
// rows 72 floats apart (8 more than the tile's, so that a warp's pairs of 8 rows fall in
// two wavefronts, not eight). The SIMD groups' side puts or gets block b (row b/8, column
// b%8 of the tile's 8x8 blocks), lane l's pair at row l/4, columns 2(l%4), 2(l%4)+1; the
// warpgroup's side reads or writes its registers as en_wg_to_registers describes them.
__device__ __forceinline__ float *en_wg_quad_tile(unsigned q) {
    unsigned aligned;
    return reinterpret_cast<float *>(en_wg_quad_memory(aligned) + q * (64u * 72u * 4u));
}
__device__ __forceinline__ ::float2 *en_wg_tile_pair(float *tile, unsigned row, unsigned col) {
    return reinterpret_cast<::float2 *>(tile + row * 72u + col);
}
// this lane's pair of block b
__device__ __forceinline__ ::float2 *en_wg_tile_block(float *tile, int b) {
    const unsigned l = threadIdx.x & 31u;
    return en_wg_tile_pair(tile, (b / 8) * 8u + l / 4u, (b % 8) * 8u + 2u * (l % 4u));
}
__device__ __forceinline__ void en_wg_tile_put(float *tile, int b, const en_matrix<float> &m) { *en_wg_tile_block(tile, b) = en_wg_pair(m); }
__device__ __forceinline__ en_matrix<float> en_wg_tile_get(float *tile, int b) { return en_wg_matrix(*en_wg_tile_block(tile, b)); }
__device__ __forceinline__ void en_wg_tile_to_registers(float (&d)[32], float *tile) {
    const unsigned w = (threadIdx.x >> 5) & 3u, l = threadIdx.x & 31u;
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const ::float2 v = *en_wg_tile_pair(tile, 16u * w + 8u * h + l / 4u, 8u * j + 2u * (l % 4u));
            d[4 * j + 2 * h] = v.x; d[4 * j + 2 * h + 1] = v.y;
        }
}
__device__ __forceinline__ void en_wg_tile_from_registers(const float (&d)[32], float *tile) {
    const unsigned w = (threadIdx.x >> 5) & 3u, l = threadIdx.x & 31u;
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            *en_wg_tile_pair(tile, 16u * w + 8u * h + l / 4u, 8u * j + 2u * (l % 4u)) = ::make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
}
#endif

} // namespace metal
// ---- end of prelude -------------------------------------------------------------------------
