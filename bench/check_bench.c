/* check_bench.c — what checked mode costs: a 2^20-element reduction run checked against
 * the same kernel run unchecked on the cpu backend, in one process, with one input.
 *
 * Two reductions, both from bench/kernels:
 *   reduce_simd     grid-stride simd_sum, one partial per threadgroup (the bandwidth bench)
 *   seed003_reduce  seed 003's tree reduction in threadgroup memory with a barrier per level
 *                   and one atomic add per threadgroup (every threadgroup-memory access goes
 *                   through shadow memory: the worst case for the checker; its one device
 *                   write is atomic, so every worker checks threadgroups of it)
 * Each side is timed back to back (median of several dispatches after a warm-up), then the
 * two alternate in pairs; both runs must give the reference sum (computed here in double /
 * exact integers) and the checked run must report nothing. Prints one line per kernel: the
 * back-to-back medians and their ratio, then the pairs' median times and median ratio.
 *
 * usage: check_bench [KERNEL_DIR]   (default: bench/kernels of the source tree) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_PROGRAM "check_bench"
#include "bench.h"

#ifndef ENIGMA_SOURCE_DIR
#define ENIGMA_SOURCE_DIR "."
#endif

#define N (1u << 20)
#define REPEATS 9

static enigma_device *dev;
static const char *kernel_dir = ENIGMA_SOURCE_DIR "/bench/kernels";

static enigma_pipeline *load(const char *file, const char *kernel, bool checked, enigma_library **lib) {
    enigma_compile_options opts = {.checked = checked};
    return bench_load(dev, kernel_dir, file, kernel, &opts, lib);
}

/* one kernel's dispatch, unchecked or checked: its command, its shape, and the buffer to
 * zero before each dispatch (an atomic sum's output), if any */
typedef struct run {
    enigma_library *lib;
    enigma_pipeline *p;
    enigma_command *cmd;
    enigma_buffer *in, *out;
    enigma_size3 groups, threads;
    size_t zero_bytes; /* of out, before each dispatch (0: none) */
} run;

static double dispatch_once(run *r, bool checked, const void *zeros) {
    if (r->zero_bytes) CHECK(enigma_buffer_write(r->out, 0, zeros, r->zero_bytes));
    double t0 = now_s();
    CHECK(enigma_command_dispatch(r->cmd, ENIGMA_DISPATCH_THREADGROUPS, r->groups, r->threads));
    double dt = now_s() - t0;
    if (checked && enigma_command_report_count(r->cmd) != 0) {
        fprintf(stderr, "check_bench: checked run reported problems:\n%s", enigma_command_reports_text(r->cmd));
        exit(1);
    }
    return dt;
}

/* Two measures of the same dispatches. Back to back: each side's median of REPEATS
 * dispatches after a warm-up, one side after the other (ms[0], ms[1]). Paired: REPEATS
 * pairs, an unchecked dispatch then the checked one, the median of the pairs' ratios
 * (*paired, and the pairs' median times in pair_ms): a change in the machine's state moves
 * both sides of a pair, where back to back the unchecked run (a fraction of a millisecond)
 * swung the ratio by half. A paired unchecked dispatch follows a checked one, and reads a
 * little slower than back to back: both are printed. */
static void time_both(run r[2], double ms[2], double pair_ms[2], double *paired) {
    double t[2][REPEATS], q[REPEATS];
    void *zeros = calloc(1, r[0].zero_bytes > r[1].zero_bytes ? r[0].zero_bytes : r[1].zero_bytes);
    for (int k = 0; k < 2; k++) {
        for (int i = -1; i < REPEATS; i++) {
            double dt = dispatch_once(&r[k], k == 1, zeros);
            if (i >= 0) t[k][i] = dt;
        }
        ms[k] = bench_median(t[k], REPEATS) * 1e3;
    }
    for (int i = 0; i < REPEATS; i++) {
        t[0][i] = dispatch_once(&r[0], false, zeros);
        t[1][i] = dispatch_once(&r[1], true, zeros);
        q[i] = t[1][i] / t[0][i];
    }
    free(zeros);
    for (int k = 0; k < 2; k++) pair_ms[k] = bench_median(t[k], REPEATS) * 1e3;
    *paired = bench_median(q, REPEATS);
}

static void run_free(run *r) {
    enigma_command_destroy(r->cmd);
    enigma_buffer_destroy(r->in);
    enigma_buffer_destroy(r->out);
    enigma_pipeline_destroy(r->p);
    enigma_library_destroy(r->lib);
}

static void print_ratio(const char *what, const double ms[2], const double pair_ms[2], double paired) {
    printf("%s unchecked %8.3f ms, checked %8.3f ms, ratio %5.1fx; paired: %.3f / %.3f ms, ratio %5.1fx\n", what,
           ms[0], ms[1], ms[1] / ms[0], pair_ms[0], pair_ms[1], paired);
}

static void bench_reduce_simd(const float *x, double reference) {
    const uint32_t groups = 64, threads = 256, n = N;
    run r[2];
    for (int checked = 0; checked < 2; checked++) {
        run *k = &r[checked];
        *k = (run){.groups = {groups, 1, 1}, .threads = {threads, 1, 1}};
        k->p = load("reduce_simd.metal", "reduce_simd", checked, &k->lib);
        CHECK(enigma_buffer_create_with_data(dev, x, N * sizeof(float), &k->in));
        CHECK(enigma_buffer_create(dev, groups * sizeof(float), &k->out));
        CHECK(enigma_command_create(k->p, &k->cmd));
        CHECK(enigma_command_set_buffer(k->cmd, 0, k->in, 0));
        CHECK(enigma_command_set_buffer(k->cmd, 1, k->out, 0));
        CHECK(enigma_command_set_bytes(k->cmd, 2, &n, sizeof n));
    }
    double ms[2], pair_ms[2], paired;
    time_both(r, ms, pair_ms, &paired);
    for (int checked = 0; checked < 2; checked++) {
        float part[64];
        CHECK(enigma_buffer_read(r[checked].out, 0, part, sizeof part));
        double sum = 0;
        for (uint32_t i = 0; i < groups; i++) sum += part[i];
        if (fabs(sum - reference) > 1e-3 * fabs(reference) + 1e-2) {
            fprintf(stderr, "check_bench: reduce_simd (%s) sum %.6f, expected %.6f\n", checked ? "checked" : "unchecked",
                    sum, reference);
            exit(1);
        }
        run_free(&r[checked]);
    }
    print_ratio("reduce_simd     2^20 floats:", ms, pair_ms, paired);
}

static void bench_seed003(const int32_t *x, long long reference) {
    const uint32_t threads = 256, groups = N / threads;
    run r[2];
    for (int checked = 0; checked < 2; checked++) {
        run *k = &r[checked];
        *k = (run){.groups = {groups, 1, 1}, .threads = {threads, 1, 1}, .zero_bytes = sizeof(int32_t)};
        k->p = load("seed003_reduce.metal", "reduce", checked, &k->lib);
        CHECK(enigma_buffer_create_with_data(dev, x, N * sizeof(int32_t), &k->in));
        CHECK(enigma_buffer_create(dev, sizeof(int32_t), &k->out));
        CHECK(enigma_command_create(k->p, &k->cmd));
        CHECK(enigma_command_set_buffer(k->cmd, 0, k->in, 0));
        CHECK(enigma_command_set_buffer(k->cmd, 1, k->out, 0));
        CHECK(enigma_command_set_threadgroup_memory(k->cmd, 0, threads * sizeof(int32_t)));
    }
    double ms[2], pair_ms[2], paired;
    time_both(r, ms, pair_ms, &paired);
    for (int checked = 0; checked < 2; checked++) {
        int32_t got;
        CHECK(enigma_buffer_read(r[checked].out, 0, &got, sizeof got));
        if (got != (int32_t)reference) {
            fprintf(stderr, "check_bench: seed003 (%s) sum %d, expected %lld\n", checked ? "checked" : "unchecked", got,
                    reference);
            exit(1);
        }
        run_free(&r[checked]);
    }
    print_ratio("seed003_reduce  2^20 ints:  ", ms, pair_ms, paired);
}

int main(int argc, char **argv) {
    if (argc > 1) kernel_dir = argv[1];
    CHECK(enigma_device_open("cpu", &dev));
    enigma_device_info info;
    CHECK(enigma_device_get_info(dev, &info));
    printf("check_bench: cpu backend, %u worker threads for unchecked runs (checked runs use one, or all where the kernel writes device memory only atomically)\n",
           info.compute_units);
    float *xf = malloc(N * sizeof(float));
    int32_t *xi = malloc(N * sizeof(int32_t));
    unsigned long long s = (unsigned long long)time(NULL) * 2654435761ull | 1;
    double ref_f = 0;
    long long ref_i = 0;
    for (uint32_t i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        xf[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        xi[i] = (int32_t)(s % 2001) - 1000;
        ref_f += xf[i];
        ref_i += xi[i];
    }
    bench_reduce_simd(xf, ref_f);
    bench_seed003(xi, ref_i);
    free(xf);
    free(xi);
    enigma_device_close(dev);
    return 0;
}
