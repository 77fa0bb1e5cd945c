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
    /* never trap: division by zero and INT_MIN / -1 give values */
    if (enk_div_i32(5, 0) != 0 || enk_div_i32(INT32_MIN, -1) != INT32_MIN || enk_rem_i32(INT32_MIN, -1) != 0) failures++;
    fprintf(stderr, "%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
