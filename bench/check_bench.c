/* check_bench.c — what checked mode costs: a 2^20-element reduction run checked against
 * the same kernel run unchecked on the cpu backend, in one process, with one input.
 *
 * Two reductions, both from bench/kernels:
 *   reduce_simd     grid-stride simd_sum, one partial per threadgroup (the bandwidth bench)
 *   seed003_reduce  seed 003's tree reduction in threadgroup memory with a barrier per level
 *                   and one atomic add per threadgroup (every threadgroup-memory access goes
 *                   through shadow memory: the worst case for the checker; its one device
 *                   write is atomic, so every worker checks threadgroups of it)
 * Each is timed as the median of several dispatches after a warm-up; both runs must give
 * the reference sum (computed here in double / exact integers) and the checked run must
 * report nothing. Prints one line per kernel: unchecked ms, checked ms, ratio.
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

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static enigma_pipeline *load(const char *file, const char *kernel, bool checked, enigma_library **lib) {
    enigma_compile_options opts = {.checked = checked};
    return bench_load(dev, kernel_dir, file, kernel, &opts, lib);
}

/* median seconds of REPEATS dispatches after one warm-up; `reset` runs before each */
typedef struct run {
    enigma_command *cmd;
    enigma_size3 groups, threads;
    enigma_buffer *zero_me;
    size_t zero_bytes;
} run;

static double time_runs(run *r, bool checked) {
    double t[REPEATS];
    void *zeros = calloc(1, r->zero_bytes);
    for (int i = -1; i < REPEATS; i++) {
        if (r->zero_me) CHECK(enigma_buffer_write(r->zero_me, 0, zeros, r->zero_bytes));
        double t0 = now_s();
        CHECK(enigma_command_dispatch(r->cmd, ENIGMA_DISPATCH_THREADGROUPS, r->groups, r->threads));
        double dt = now_s() - t0;
        if (i >= 0) t[i] = dt;
        if (checked && enigma_command_report_count(r->cmd) != 0) {
            fprintf(stderr, "check_bench: checked run reported problems:\n%s", enigma_command_reports_text(r->cmd));
            exit(1);
        }
    }
    free(zeros);
    qsort(t, REPEATS, sizeof t[0], cmp_double);
    return t[REPEATS / 2];
}

static void bench_reduce_simd(const float *x, double reference) {
    const uint32_t groups = 64, threads = 256, n = N;
    double ms[2];
    for (int checked = 0; checked < 2; checked++) {
        enigma_library *lib;
        enigma_pipeline *p = load("reduce_simd.metal", "reduce_simd", checked, &lib);
        enigma_buffer *in, *partials;
        CHECK(enigma_buffer_create_with_data(dev, x, N * sizeof(float), &in));
        CHECK(enigma_buffer_create(dev, groups * sizeof(float), &partials));
        enigma_command *cmd;
        CHECK(enigma_command_create(p, &cmd));
        CHECK(enigma_command_set_buffer(cmd, 0, in, 0));
        CHECK(enigma_command_set_buffer(cmd, 1, partials, 0));
        CHECK(enigma_command_set_bytes(cmd, 2, &n, sizeof n));
        run r = {cmd, {groups, 1, 1}, {threads, 1, 1}, NULL, 0};
        ms[checked] = time_runs(&r, checked) * 1e3;
        float part[64];
        CHECK(enigma_buffer_read(partials, 0, part, sizeof part));
        double sum = 0;
        for (uint32_t i = 0; i < groups; i++) sum += part[i];
        if (fabs(sum - reference) > 1e-3 * fabs(reference) + 1e-2) {
            fprintf(stderr, "check_bench: reduce_simd (%s) sum %.6f, expected %.6f\n", checked ? "checked" : "unchecked",
                    sum, reference);
            exit(1);
        }
        enigma_command_destroy(cmd);
        enigma_buffer_destroy(in);
        enigma_buffer_destroy(partials);
        enigma_pipeline_destroy(p);
        enigma_library_destroy(lib);
    }
    printf("reduce_simd     2^20 floats: unchecked %8.3f ms, checked %8.3f ms, ratio %5.1fx\n", ms[0], ms[1],
           ms[1] / ms[0]);
}

static void bench_seed003(const int32_t *x, long long reference) {
    const uint32_t threads = 256, groups = N / threads;
    double ms[2];
    for (int checked = 0; checked < 2; checked++) {
        enigma_library *lib;
        enigma_pipeline *p = load("seed003_reduce.metal", "reduce", checked, &lib);
        enigma_buffer *in, *out;
        CHECK(enigma_buffer_create_with_data(dev, x, N * sizeof(int32_t), &in));
        CHECK(enigma_buffer_create(dev, sizeof(int32_t), &out));
        enigma_command *cmd;
        CHECK(enigma_command_create(p, &cmd));
        CHECK(enigma_command_set_buffer(cmd, 0, in, 0));
        CHECK(enigma_command_set_buffer(cmd, 1, out, 0));
        CHECK(enigma_command_set_threadgroup_memory(cmd, 0, threads * sizeof(int32_t)));
        run r = {cmd, {groups, 1, 1}, {threads, 1, 1}, out, sizeof(int32_t)};
        ms[checked] = time_runs(&r, checked) * 1e3;
        int32_t got;
        CHECK(enigma_buffer_read(out, 0, &got, sizeof got));
        if (got != (int32_t)reference) {
            fprintf(stderr, "check_bench: seed003 (%s) sum %d, expected %lld\n", checked ? "checked" : "unchecked", got,
                    reference);
            exit(1);
        }
        enigma_command_destroy(cmd);
        enigma_buffer_destroy(in);
        enigma_buffer_destroy(out);
        enigma_pipeline_destroy(p);
        enigma_library_destroy(lib);
    }
    printf("seed003_reduce  2^20 ints:   unchecked %8.3f ms, checked %8.3f ms, ratio %5.1fx\n", ms[0], ms[1],
           ms[1] / ms[0]);
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
