/* bench.h — what the benchmark programs share: a fatal check of an enigma call, a clock, a
 * median, and loading a kernel from a file of bench/kernels. Each program is one C file that
 * defines BENCH_PROGRAM (its name, for messages) before including this. */
#ifndef ENIGMA_BENCH_H
#define ENIGMA_BENCH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "enigma.h"

#ifndef BENCH_PROGRAM
#error "define BENCH_PROGRAM before including bench.h"
#endif

/* a benchmark cannot go on without its kernel's result: say what failed and exit */
static void bench_die(const char *what, enigma_status s) {
    fprintf(stderr, BENCH_PROGRAM ": %s: %s: %s\n", what, enigma_status_name(s), enigma_last_error());
    exit(1);
}
#define CHECK(call)                                                                                \
    do {                                                                                           \
        enigma_status s_ = (call);                                                                 \
        if (s_ != ENIGMA_OK) bench_die(#call, s_);                                                 \
    } while (0)

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline int bench_by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the median of n values (sorted in place): a ratio from its tries' ratios, a time from
 * repeated dispatches */
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof v[0], bench_by_value);
    return v[n / 2];
}

/* kernel `kernel` of dir/file, built with `options` (NULL: the defaults); a compile error
 * prints the diagnostics and exits. *lib (when lib is not NULL) is the library, else it
 * stays alive for the process: benchmarks exit right after. */
static enigma_pipeline *bench_load(enigma_device *dev, const char *dir, const char *file, const char *kernel,
                                   const enigma_compile_options *options, enigma_library **lib) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    enigma_library *library;
    enigma_status s = enigma_library_create_from_file(dev, path, options, &library);
    if (s) {
        fprintf(stderr, "%s", library ? enigma_library_diagnostics_text(library) : "");
        bench_die(path, s);
    }
    enigma_pipeline *p;
    CHECK(enigma_pipeline_create(library, kernel, &p));
    if (lib) *lib = library;
    return p;
}

/* row `row` of a softmax of rows of `cols` (y from x, bench/kernels/softmax.metal) against a
 * double-precision softmax; a wrong element is reported and the program exits */
static void bench_check_softmax_row(const float *x, const float *y, uint32_t cols, uint32_t row) {
    const float *xr = x + (size_t)row * cols, *yr = y + (size_t)row * cols;
    double m = -INFINITY, sum = 0;
    for (uint32_t j = 0; j < cols; j++) m = xr[j] > m ? xr[j] : m;
    for (uint32_t j = 0; j < cols; j++) sum += exp((double)xr[j] - m);
    for (uint32_t j = 0; j < cols; j++) {
        double want = exp((double)xr[j] - m) / sum;
        if (fabs(yr[j] - want) > 1e-5 * want + 1e-12) {
            fprintf(stderr, BENCH_PROGRAM ": softmax y[%u][%u] = %g, expected %g\n", row, j, yr[j], want);
            exit(1);
        }
    }
}

#endif
