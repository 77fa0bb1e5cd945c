/* test_cpu_prelude.c — the generated code's helpers (src/cpu/prelude.txt), compiled here
 * with the portable half conversions (ENK_NO_FLOAT16, used where the C compiler has no
 * _Float16) and checked against the compiler's own _Float16 on every half value and on
 * random floats (round to nearest even, subnormals, overflow, NaN); bfloat against a
 * reference computed here in double; the integer helpers against wide arithmetic. */
#define ENK_NO_FLOAT16
#include "cpu/prelude.txt"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int failures;

static uint64_t state;
static uint32_t rnd32(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 16);
}

/* bfloat reference: nearest of the two neighbours in double, ties to even */
static uint16_t bf_ref(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    uint32_t lo = bits & 0xffff0000u, hi = lo + 0x10000u;
    float flo, fhi;
    memcpy(&flo, &lo, 4);
    memcpy(&fhi, &hi, 4);
    double dlo = fabs((double)x - flo), dhi = fabs((double)fhi - x);
    if (isinf(fhi)) dhi = fabs((double)x - (double)flo) + 1; /* hi overflowed to inf: keep the
                                                                 reference simple below */
    uint32_t pick = dlo < dhi ? lo : dlo > dhi ? hi : ((lo >> 16) & 1 ? hi : lo);
    return (uint16_t)(pick >> 16);
}

/* fast::exp's error in ulps of the correctly rounded result (double exp is the reference;
 * a subnormal result's ulp is the smallest subnormal). Results under 2^-125 may be flushed to
 * 0 (fast math's flush, at the edge of the subnormals): a 0 there counts as no error. */
static double exp_ulps(float x, float got) {
    double want = exp((double)x);
    if (got == 0.0f && want < 0x1p-125) return 0;
    float rounded = (float)want;
    double ulp = nextafterf(rounded, INFINITY) - rounded;
    if (ulp < 0x1p-149) ulp = 0x1p-149;
    return fabs((double)got - want) / ulp;
}

int main(void) {
    state = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1;
#if defined(__FLT16_MAX__)
    for (uint32_t h = 0; h < 65536; h++) {
        _Float16 f;
        uint16_t bits = (uint16_t)h;
        memcpy(&f, &bits, 2);
        float want = (float)f, got = enk_h2f(bits);
        if (!(got == want || (isnan(got) && isnan(want))) && failures++ < 5)
            fprintf(stderr, "h2f(%04x) = %a, expected %a\n", h, got, want);
    }
    for (int i = 0; i < 2000000; i++) {
        uint32_t bits = rnd32();
        if (i % 4 == 0) bits = (bits & 0x807fffffu) | ((uint32_t)(100 + rnd32() % 50) << 23); /* near half range */
        float x;
        memcpy(&x, &bits, 4);
        _Float16 f = (_Float16)x;
        uint16_t want;
        memcpy(&want, &f, 2);
        uint16_t got = enk_f2h(x);
        if (isnan(x)) {
            if (((got & 0x7c00) != 0x7c00 || !(got & 0x3ff)) && failures++ < 5) fprintf(stderr, "f2h(NaN) = %04x\n", got);
        } else if (got != want && failures++ < 5) {
            fprintf(stderr, "f2h(%a) = %04x, expected %04x\n", x, got, want);
        }
    }
#else
    fprintf(stderr, "no _Float16 here: half conversions not cross-checked\n");
#endif
    for (int i = 0; i < 2000000; i++) {
        uint32_t bits = rnd32();
        float x;
        memcpy(&x, &bits, 4);
        if (isinf(x) || (bits & 0x7f800000u) == 0x7f000000u) continue; /* near overflow: skip */
        uint16_t got = enk_f2bf(x), want = bf_ref(x);
        if (isnan(x)) want = got | 0x40; /* any quiet NaN */
        if (got != want && failures++ < 5) fprintf(stderr, "f2bf(%a) = %04x, expected %04x\n", x, got, want);
    }
    for (int i = 0; i < 1000000; i++) {
        int32_t a = (int32_t)rnd32(), b = (int32_t)rnd32() >> (rnd32() % 31);
        int64_t s = (int64_t)a + b;
        int32_t sat = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
        if (enk_addsat_i32(a, b) != sat && failures++ < 5) fprintf(stderr, "addsat(%d, %d)\n", a, b);
        if (enk_mulhi_i32(a, b) != (int32_t)(((int64_t)a * b) >> 32) && failures++ < 5) fprintf(stderr, "mulhi(%d, %d)\n", a, b);
        uint32_t u = (uint32_t)a;
        int clz = 0;
        while (clz < 32 && !((u << clz) & 0x80000000u)) clz++;
        if ((int)enk_clz_u32(u) != clz && failures++ < 5) fprintf(stderr, "clz(%u)\n", u);
        if (b != 0 && !(a == INT32_MIN && b == -1) && enk_div_i32(a, b) != a / b && failures++ < 5)
            fprintf(stderr, "div(%d, %d)\n", a, b);
        uint32_t rev = 0;
        for (int k = 0; k < 32; k++) rev |= ((u >> k) & 1u) << (31 - k);
        if (enk_reverse_bits_u32(u) != rev && failures++ < 5) fprintf(stderr, "reverse_bits(%u)\n", u);
    }
    /* fast::exp (Metal allows 3 + 2|x| ulp in fast math; we hold 2 over the whole range, the
     * results under 2^-125 0 or within it, measured worst 1.11): every 97th float in [-110,
     * 100], random ones in it, the edges of overflow and of the subnormal results, and the
     * special values, a NaN with a payload among them */
    double worst = 0;
    float worst_x = 0;
    for (uint32_t bits = 0; bits < 0xff800000u; bits += 97) {
        float x;
        memcpy(&x, &bits, 4);
        if (!(x >= -110.0f && x <= 100.0f)) continue;
        float got = enk_fast_exp(x);
        if (isinf((float)exp((double)x))) {
            if (!(isinf(got) && got > 0) && failures++ < 5) fprintf(stderr, "fast_exp(%a) = %a, expected inf\n", x, got);
            continue;
        }
        double e = exp_ulps(x, got);
        if (e > worst) worst = e, worst_x = x;
    }
    for (int i = 0; i < 2000000; i++) {
        float x = -110.0f + 210.0f * (float)rnd32() / 4294967296.0f;
        if (i & 1) x = -88.0f - 16.0f * (float)rnd32() / 4294967296.0f; /* subnormal results */
        float got = enk_fast_exp(x);
        if (isinf((float)exp((double)x))) continue;
        double e = exp_ulps(x, got);
        if (e > worst) worst = e, worst_x = x;
    }
    if (worst > 2.0 && failures++ < 5) fprintf(stderr, "fast_exp: %.2f ulp at %a\n", worst, worst_x);
    uint32_t payload_bits = 0x7fc001ffu; /* a quiet NaN whose low bits are all set */
    float payload_nan;
    memcpy(&payload_nan, &payload_bits, 4);
    fprintf(stderr, "fast_exp: worst %.3f ulp (at %a)\n", worst, worst_x);
    if (!isnan(enk_fast_exp(NAN)) || enk_fast_exp(INFINITY) != INFINITY || enk_fast_exp(-INFINITY) != 0.0f ||
        enk_fast_exp(88.8f) != INFINITY || enk_fast_exp(-1000.0f) != 0.0f || enk_fast_exp(0.0f) != 1.0f ||
        enk_fast_exp(1e30f) != INFINITY || enk_fast_exp(-1e30f) != 0.0f || !isnan(enk_fast_exp(payload_nan)) ||
        !isnan(enk_fast_exp(-payload_nan))) {
        if (failures++ < 5) fprintf(stderr, "fast_exp: special values wrong\n");
    }
    /* never trap: division by zero and INT_MIN / -1 give values */
    if (enk_div_i32(5, 0) != 0 || enk_div_i32(INT32_MIN, -1) != INT32_MIN || enk_rem_i32(INT32_MIN, -1) != 0) failures++;
    /* simdgroup products: each element c, then + a[r][j] b[j][k] for j = 0..7, one fused
     * multiply-add a step, so bit for bit the same as the loop here; enk_mat_mul2 is two of
     * them (c NULL: from 0) */
    for (int trial = 0; trial < 200; trial++) {
        float a[64], b0[64], b1[64], c0[64], c1[64], d0[64], d1[64], want0[64], want1[64];
        for (int e = 0; e < 64; e++) {
            a[e] = (float)(int32_t)rnd32() * 0x1p-31f, b0[e] = (float)(int32_t)rnd32() * 0x1p-30f;
            b1[e] = (float)(int32_t)rnd32() * 0x1p-29f, c0[e] = (float)(int32_t)rnd32() * 0x1p-31f;
            c1[e] = (float)(int32_t)rnd32() * 0x1p-28f;
        }
        bool with_c = trial % 2 == 0;
        for (int r = 0; r < 8; r++)
            for (int k = 0; k < 8; k++) {
                float s0 = with_c ? c0[r * 8 + k] : 0.0f, s1 = with_c ? c1[r * 8 + k] : 0.0f;
                for (int j = 0; j < 8; j++) {
                    s0 = fmaf(a[r * 8 + j], b0[j * 8 + k], s0);
                    s1 = fmaf(a[r * 8 + j], b1[j * 8 + k], s1);
                }
                want0[r * 8 + k] = s0, want1[r * 8 + k] = s1;
            }
        enk_mat_mul2(d0, d1, a, b0, b1, with_c ? c0 : NULL, with_c ? c1 : NULL);
        if ((memcmp(d0, want0, sizeof d0) || memcmp(d1, want1, sizeof d1)) && failures++ < 5)
            fprintf(stderr, "enk_mat_mul2 differs from the fused-multiply-add order\n");
        enk_mat_mul(d0, a, b0, with_c ? c0 : NULL);
        if (memcmp(d0, want0, sizeof d0) && failures++ < 5) fprintf(stderr, "enk_mat_mul differs from the fused-multiply-add order\n");
    }
    /* blocks of products: d[i][j] = a[i] x b[j] (+ d[i][j]) for 3 x 4 (the four-column
     * path), 2 x 3 (a pair, then one column) and 1 x 6, bit for bit enk_mat_mul's */
    static const int block_shapes[][2] = {{3, 4}, {2, 3}, {1, 6}, {2, 8}};
    for (int trial = 0; trial < 80; trial++) {
        int ni = block_shapes[trial % 4][0], nj = block_shapes[trial % 4][1];
        bool with_c = trial % 8 < 4;
        float a[3][64], b[8][64], d[24][64], want[24][64];
        float *dp[24];
        const float *ap[3], *bp[8];
        for (int i = 0; i < ni; i++) {
            ap[i] = a[i];
            for (int e = 0; e < 64; e++) a[i][e] = (float)(int32_t)rnd32() * 0x1p-31f;
        }
        for (int j = 0; j < nj; j++) {
            bp[j] = b[j];
            for (int e = 0; e < 64; e++) b[j][e] = (float)(int32_t)rnd32() * 0x1p-30f;
        }
        for (int x = 0; x < ni * nj; x++) {
            dp[x] = d[x];
            for (int e = 0; e < 64; e++) d[x][e] = (float)(int32_t)rnd32() * 0x1p-29f;
            enk_mat_mul(want[x], a[x / nj], b[x % nj], with_c ? d[x] : NULL);
        }
        enk_mat_block(dp, ap, bp, ni, nj, with_c);
        if (memcmp(d, want, sizeof(float) * 64 * (size_t)(ni * nj)) && failures++ < 5)
            fprintf(stderr, "enk_mat_block %d x %d differs from enk_mat_mul\n", ni, nj);
    }
    fprintf(stderr, "%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
