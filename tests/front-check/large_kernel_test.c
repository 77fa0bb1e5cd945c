/* large_kernel_test.c — the front end stays linear on generated kernels.
 *
 *   large_kernel_test [N]   (default 5000)
 *
 * Builds, in memory, a tinygrad-style kernel of N straight-line statements (thousands of
 * uniquely named locals in one scope, each read by later statements; the shape
 * tests/front-check/gen_large.py writes to a file for measurements), then one with the
 * statements split into loops of 100, and runs each through the whole pipeline
 * (en_compile) and the IR printer, as `enigma compile --emit ir` does. ctest runs it
 * under a timeout, and it measures the processor time of N/4 and N statements (best of
 * three each): linear growth makes the second about 4 times the first, quadratic about
 * 16 (the name lookup this test was written for: 14); above 9 it fails. Besides
 * time it checks that the compile succeeds and that the last statement's variable and
 * the final store reached the IR, and that a redefinition deep in the big scope is still
 * reported (the hashed scope must find names however many precede them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ctx.h"
#include "ir/ir.h"
#include "runtime/compile.h"

/* a fixed-seed linear congruential generator: the same kernel every run */
static unsigned long long rng_state = 20261121ull;
static unsigned rng(unsigned n) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

typedef struct names {
    int *ids; /* statement numbers of the float names; -1 is acc0 */
    int count, cap;
} names;

static void push(names *v, int id) {
    if (v->count == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 64;
        v->ids = realloc(v->ids, sizeof *v->ids * (size_t)v->cap);
        if (!v->ids) abort();
    }
    v->ids[v->count++] = id;
}

/* mostly a recent name, sometimes one from far back (long live ranges) */
static void put_name(en_buf *b, const names *v) {
    int k = rng(4) == 0 ? (int)rng((unsigned)v->count) : v->count - 1 - (int)rng(v->count < 8 ? (unsigned)v->count : 8u);
    int id = v->ids[k];
    if (id < 0) en_buf_puts(b, "acc0");
    else en_buf_printf(b, "v%d", id);
}

static char *generate(int n, bool loops, bool redefine, int *last_id) {
    en_buf b = {0};
    en_buf_puts(&b, "#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void r_generated(device float* data0 [[buffer(0)]],\n"
                    "                        const device float* data1 [[buffer(1)]],\n"
                    "                        uint3 gid [[threadgroup_position_in_grid]]) {\n"
                    "  int gidx0 = gid.x;\n  float acc0 = 0.0f;\n");
    names outer = {0}, cur = {0};
    push(&cur, -1);
    bool in_loop = false;
    *last_id = -1;
    for (int i = 0; i < n; i++) {
        if (loops && i % 100 == 0) {
            if (in_loop) en_buf_puts(&b, "  }\n");
            /* names declared in a loop die with it */
            outer.count = 0;
            push(&outer, -1);
            cur.count = 0;
            push(&cur, -1);
            en_buf_printf(&b, "  for (int ridx%d = 0; ridx%d < 4; ridx%d++) {\n", i, i, i);
            in_loop = true;
        }
        switch (rng(6)) {
        case 0:
            en_buf_printf(&b, "  float v%d = *(data1+(gidx0*%u+%u));\n", i, 1 + rng(15), rng(64));
            break;
        case 1:
            en_buf_printf(&b, "  float v%d = (", i);
            put_name(&b, &cur);
            en_buf_puts(&b, "<");
            put_name(&b, &cur);
            en_buf_puts(&b, ")?");
            put_name(&b, &cur);
            en_buf_puts(&b, ":");
            put_name(&b, &cur);
            en_buf_puts(&b, ";\n");
            break;
        case 2:
            en_buf_puts(&b, "  acc0 = (acc0+");
            put_name(&b, &cur);
            en_buf_puts(&b, ");\n");
            continue;
        case 3:
            en_buf_printf(&b, "  float v%d = max(", i);
            put_name(&b, &cur);
            en_buf_printf(&b, ", (float)(gidx0*%u));\n", 1 + rng(7));
            break;
        default:
            en_buf_printf(&b, "  float v%d = (", i);
            put_name(&b, &cur);
            en_buf_puts(&b, rng(2) ? "+" : "*");
            put_name(&b, &cur);
            en_buf_printf(&b, "-%u.5f);\n", rng(3));
            break;
        }
        push(&cur, i);
        *last_id = i;
    }
    /* an error the checker must find: the first name declared again, last */
    if (redefine && cur.count > 1 && !loops) en_buf_printf(&b, "  float v%d = 1.0f;\n", cur.ids[1]);
    if (in_loop) {
        en_buf_puts(&b, "  }\n");
        *last_id = -1; /* the loop's names are gone; the store reads acc0 */
    }
    if (*last_id >= 0) en_buf_printf(&b, "  *(data0+gidx0) = (acc0+v%d);\n}\n", *last_id);
    else en_buf_puts(&b, "  *(data0+gidx0) = acc0;\n}\n");
    free(outer.ids);
    free(cur.ids);
    if (b.out_of_memory) abort();
    return b.data;
}

static int failures;

/* compiles one generated kernel; its processor time in seconds */
static double compile_one(int n, bool loops, bool redefine, bool quiet) {
    int last_id;
    char *src = generate(n, loops, redefine, &last_id);
    en_ctx c;
    en_ctx_init(&c);
    clock_t start = clock();
    int file = en_source_add(&c.sources, "large.metal", src, strlen(src));
    ir_module *m = en_compile(&c, file, NULL);
    en_buf out = {0};
    if (m) ir_print_module_flags(m, &out, 0);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    en_buf diags = {0};
    en_diags_render(&c.diags, &diags);
    const char *what = loops ? "loops" : "straight-line";
    if (redefine) {
        if (!strstr(diags.data ? diags.data : "", "error: redefinition of 'v")) {
            printf("FAIL %s N=%d: the late redefinition was not reported\n%s", what, n,
                   diags.data ? diags.data : "");
            failures++;
        } else if (!quiet) {
            printf("ok %s N=%d: the late redefinition is reported\n", what, n);
        }
    } else if (!m || c.diags.errors || ir_module_kernel_count(m) != 1) {
        printf("FAIL %s N=%d: did not compile\n%s", what, n, diags.data ? diags.data : "");
        failures++;
    } else {
        char want[64];
        if (last_id >= 0) snprintf(want, sizeof want, "v%d", last_id);
        else snprintf(want, sizeof want, "acc0");
        if (!out.data || !strstr(out.data, want) || !strstr(out.data, "data0")) {
            printf("FAIL %s N=%d: '%s' or the final store is missing from the IR\n", what, n, want);
            failures++;
        } else if (!quiet) {
            printf("ok %s N=%d: %.3f s, %zu bytes of IR\n", what, n, seconds, out.len);
        }
    }
    en_buf_free(&out);
    en_buf_free(&diags);
    en_ctx_free(&c);
    free(src);
    return seconds;
}

static double best_of_three(int n) {
    double best = 1e30;
    for (int i = 0; i < 3; i++) {
        double t = compile_one(n, false, false, true);
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    if (n < 10) n = 10;
    compile_one(n, false, false, false);
    compile_one(n, true, false, false);
    compile_one(n, false, true, false);
    double small = best_of_three(n / 4), large = best_of_three(n);
    /* a floor on the small time keeps a very fast machine's clock granularity out */
    double ratio = large / (small > 0.002 ? small : 0.002);
    printf("%s growth: N=%d %.3f s, N=%d %.3f s, ratio %.1f (linear 4, quadratic 16)\n",
           ratio > 9 ? "FAIL" : "ok", n / 4, small, n, large, ratio);
    if (ratio > 9) failures++;
    return failures ? 1 : 0;
}
