/* test_batches.c — building a library of many kernels in batches (several kernels to one
 * backend program): enigma_library_plan_batches cuts them as documented; kernels built in
 * a batch compute what they compute built alone (each against a reference from fresh
 * random inputs, and bit for bit against the lone build), with a function constant and
 * in checked mode; a batch's cache entry is found again by the same batch; a batch with a
 * kernel the C compiler refuses fails whole, and the kernels built alone then name it.
 * Skips while the front end or the cpu backend is not built. */
#include <dirent.h>
#include <time.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_test.h"

enum { KERNELS = 21, N = 256, GROUP = 64 };

static char source[16384];
static int past_end_line; /* the line of past_end's out-of-bounds write */

/* KERNELS kernels of three shapes: affine_K (a * (K + 1) + bias), xor_K (the lane K % 32
 * away in its SIMD group, through simd_shuffle_xor), reverse_K (the threadgroup reversed
 * through threadgroup memory, times K); then past_end, which writes one past its output.
 * Kernel K is named shape_K with K its index in the library. */
static void make_source(void) {
    size_t n = 0;
    int line = 1;
    n += (size_t)snprintf(source + n, sizeof source - n,
                          "#include <metal_stdlib>\nusing namespace metal;\n"
                          "constant float bias [[function_constant(0)]];\n");
    line += 3;
    for (int k = 0; k < KERNELS - 1; k++) {
        const char *head = "(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],\n"
                           "  uint i [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]]) {\n";
        if (k % 3 == 0)
            n += (size_t)snprintf(source + n, sizeof source - n,
                                  "kernel void affine_%d%s    out[i] = a[i] * %d.0f + bias;\n}\n", k, head, k + 1);
        else if (k % 3 == 1)
            n += (size_t)snprintf(source + n, sizeof source - n,
                                  "kernel void xor_%d%s    out[i] = simd_shuffle_xor(a[i], ushort(%d)) + bias;\n}\n",
                                  k, head, k % 32);
        else
            n += (size_t)snprintf(source + n, sizeof source - n,
                                  "kernel void reverse_%d%s    threadgroup float tile[%d];\n    tile[lid] = a[i];\n"
                                  "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
                                  "    out[i] = tile[%d - lid] * %d.0f + bias;\n}\n",
                                  k, head, GROUP, GROUP - 1, k);
        line += k % 3 == 2 ? 7 : 4;
    }
    n += (size_t)snprintf(source + n, sizeof source - n,
                          "kernel void past_end(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],\n"
                          "  uint i [[thread_position_in_grid]]) {\n    out[i + 1] = a[i];\n}\n");
    past_end_line = line + 2;
}

static float bias = 0.25f;

/* what kernel k makes of a, in double */
static double expected(int k, const float *a, int i) {
    int group_start = i / GROUP * GROUP, lid = i - group_start;
    if (k % 3 == 0) return (double)a[i] * (k + 1) + bias;
    if (k % 3 == 1) return (double)a[i ^ (k % 32)] + bias;
    return (double)a[group_start + GROUP - 1 - lid] * k + bias;
}

static enigma_library *library(enigma_device *dev, bool checked) {
    static const char *constants[] = {"bias=0.25"};
    enigma_compile_options opts = {.function_constants = constants, .function_constant_count = 1, .checked = checked};
    enigma_library *lib = NULL;
    CHECK_STATUS(enigma_library_create_from_source(dev, source, strlen(source), "batches.metal", &opts, &lib),
                 ENIGMA_OK);
    return lib;
}

/* runs kernel `name` of lib over a into out; the dispatch's status */
static enigma_status run(enigma_device *dev, enigma_library *lib, const char *name, const float *a, float *out,
                         enigma_command **keep) {
    enigma_pipeline *p = NULL;
    enigma_command *cmd = NULL;
    enigma_buffer *abuf = NULL, *obuf = NULL;
    enigma_status st = enigma_pipeline_create(lib, name, &p);
    if (st == ENIGMA_OK) st = enigma_command_create(p, &cmd);
    if (st == ENIGMA_OK) st = enigma_buffer_create_with_data(dev, a, N * sizeof(float), &abuf);
    if (st == ENIGMA_OK) st = enigma_buffer_create(dev, N * sizeof(float), &obuf);
    if (st == ENIGMA_OK) st = enigma_command_set_buffer(cmd, 0, abuf, 0);
    if (st == ENIGMA_OK) st = enigma_command_set_buffer(cmd, 1, obuf, 0);
    if (st == ENIGMA_OK) {
        enigma_size3 grid = {N, 1, 1}, group = {GROUP, 1, 1};
        st = enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group);
        if (enigma_buffer_read(obuf, 0, out, N * sizeof(float)) != ENIGMA_OK) st = ENIGMA_ERROR_INTERNAL;
    }
    enigma_buffer_destroy(abuf);
    enigma_buffer_destroy(obuf);
    enigma_pipeline_destroy(p);
    if (keep) *keep = cmd;
    else enigma_command_destroy(cmd);
    return st;
}

static int cache_entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".so")) n++;
    if (d) closedir(d);
    return n;
}

static void plan_batches(void) {
    enigma_library *lib = library(NULL, false);
    if (!lib) return;
    const char *names[KERNELS];
    for (int k = 0; k < KERNELS; k++) names[k] = enigma_library_kernel_name(lib, k);
    int of[KERNELS], count = -1;
    CHECK_STATUS(enigma_library_plan_batches(lib, "cpu", names, KERNELS, 8, 0, of, &count), ENIGMA_OK);
    CHECK(count == 3);
    for (int k = 0; k < KERNELS; k++) CHECK(of[k] == k / 8);
    /* two jobs: batches of at most ceil(21 / (2 jobs * 4)) = 3 kernels */
    CHECK_STATUS(enigma_library_plan_batches(lib, "cuda", names, KERNELS, 0, 2, of, &count), ENIGMA_OK);
    CHECK(count == 7);
    for (int k = 0; k < KERNELS; k++) CHECK(of[k] == k / 3);
    const char *twice[] = {names[0], names[1], names[0]};
    CHECK_STATUS(enigma_library_plan_batches(lib, "cpu", twice, 3, 0, 0, of, &count), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_IS("enigma_library_plan_batches: kernel 'affine_0' is named twice");
    const char *unknown[] = {"nope"};
    CHECK_STATUS(enigma_library_plan_batches(lib, "cpu", unknown, 1, 0, 0, of, &count), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_IS("enigma_library_plan_batches: the library has no kernel named 'nope' (21 kernels)");
    CHECK_STATUS(enigma_library_plan_batches(lib, "metal", names, 1, 0, 0, of, &count), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("unknown backend 'metal'");
    CHECK_STATUS(enigma_library_build_kernels(lib, names, 2), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("the library has no device to build for");
    enigma_library_destroy(lib);
}

/* every kernel built in batches of 8 computes what the lone build computes, bit for bit,
 * and what the reference says; the same batch again is found in the cache */
static void batched_as_alone(enigma_device *dev, const char *cache) {
    enigma_library *alone = library(dev, false), *batched = library(dev, false);
    if (!alone || !batched) return;
    /* copies: the names outlive the libraries */
    static char storage[KERNELS][32];
    const char *names[KERNELS];
    for (int k = 0; k < KERNELS; k++) {
        snprintf(storage[k], sizeof storage[k], "%s", enigma_library_kernel_name(batched, k));
        names[k] = storage[k];
    }
    int entries = cache_entries(cache);
    CHECK_STATUS(enigma_library_build_kernels(batched, names, 8), ENIGMA_OK);
    CHECK_STATUS(enigma_library_build_kernels(batched, names + 8, KERNELS - 1 - 8), ENIGMA_OK);
    CHECK(cache_entries(cache) == entries + 2); /* one program a batch */
    CHECK_STATUS(enigma_library_build_kernels(batched, names, 8), ENIGMA_OK); /* built: nothing to do */
    CHECK(cache_entries(cache) == entries + 2);

    float a[N], got[N], want[N];
    for (int i = 0; i < N; i++) a[i] = (float)rand() / (float)RAND_MAX * 20.0f - 10.0f;
    for (int k = 0; k < KERNELS - 1; k++) {
        CHECK_STATUS(run(dev, batched, names[k], a, got, NULL), ENIGMA_OK);
        CHECK_STATUS(run(dev, alone, names[k], a, want, NULL), ENIGMA_OK);
        int wrong = 0;
        for (int i = 0; i < N; i++) {
            double e = expected(k, a, i);
            if (fabs(got[i] - e) > 1e-5 * (1.0 + fabs(e)) || memcmp(&got[i], &want[i], sizeof got[i]) != 0) wrong++;
        }
        if (wrong) fprintf(stderr, "kernel %s: %d of %d values wrong\n", names[k], wrong, N);
        CHECK(wrong == 0);
    }
    enigma_library_destroy(alone);
    enigma_library_destroy(batched);

    /* another library asking for the same batch finds its program in the cache */
    entries = cache_entries(cache); /* now with the lone builds' */
    enigma_library *again = library(dev, false);
    if (!again) return;
    CHECK_STATUS(enigma_library_build_kernels(again, names, 8), ENIGMA_OK);
    CHECK(cache_entries(cache) == entries);
    const char *other[] = {names[1], names[0]}; /* the same kernels in another order: another program */
    CHECK_STATUS(enigma_library_build_kernels(again, other + 1, 1), ENIGMA_OK); /* built already */
    CHECK(cache_entries(cache) == entries);
    enigma_library_destroy(again);
    enigma_library *reordered = library(dev, false);
    if (reordered) CHECK_STATUS(enigma_library_build_kernels(reordered, other, 2), ENIGMA_OK);
    CHECK(cache_entries(cache) == entries + 1);
    enigma_library_destroy(reordered);
}

/* checked mode in a batch: past_end's write is reported at its line, its neighbours run clean */
static void checked_batch(enigma_device *dev) {
    enigma_library *lib = library(dev, true);
    if (!lib) return;
    const char *names[] = {"affine_0", "past_end", "reverse_2"};
    CHECK_STATUS(enigma_library_build_kernels(lib, names, 3), ENIGMA_OK);
    float a[N], out[N];
    for (int i = 0; i < N; i++) a[i] = (float)rand() / (float)RAND_MAX;
    enigma_command *cmd = NULL;
    CHECK_STATUS(run(dev, lib, "past_end", a, out, &cmd), ENIGMA_ERROR_CHECK_FAILED);
    enigma_check_report r;
    CHECK(cmd && enigma_command_report_count(cmd) == 1);
    if (cmd && enigma_command_get_report(cmd, 0, &r) == ENIGMA_OK) {
        CHECK(r.kind == ENIGMA_CHECK_OUT_OF_BOUNDS && r.line == past_end_line && r.count == 1);
        if (r.line != past_end_line) fprintf(stderr, "report at line %d, expected %d\n", r.line, past_end_line);
    }
    enigma_command_destroy(cmd);
    CHECK_STATUS(run(dev, lib, "reverse_2", a, out, NULL), ENIGMA_OK);
    for (int i = 0; i < N; i++) CHECK(fabs(out[i] - expected(2, a, i)) <= 1e-6);
    enigma_library_destroy(lib);
}

/* A C compiler that refuses any file holding the kernel named in $REFUSE (the generated C
 * names each kernel in a comment), and is cc otherwise: a kernel the backend cannot build,
 * in the middle of a batch. */
static void refused_kernel_in_batch(enigma_device *dev, const char *dir) {
    char script[512];
    snprintf(script, sizeof script, "%s/refusing-cc", dir);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("#!/bin/sh\n"
          "for a in \"$@\"; do case $a in *.c) if grep -q \"kernel $REFUSE \" \"$a\"; then\n"
          "  echo \"$a:1:1: error: $REFUSE is refused here\"; exit 1; fi;; esac; done\n"
          "exec cc \"$@\"\n",
          f);
    fclose(f);
    chmod(script, 0700);
    setenv("ENIGMA_CC", script, 1);
    setenv("REFUSE", "xor_4", 1);
    enigma_library *lib = library(dev, false);
    if (lib) {
        const char *names[] = {"affine_3", "xor_4", "reverse_5"};
        CHECK_STATUS(enigma_library_build_kernels(lib, names, 3), ENIGMA_ERROR_INTERNAL);
        CHECK_ERROR_HAS("xor_4 is refused here");
        /* nothing of the failed batch was kept: each kernel builds alone, one fails by name */
        float a[N], out[N];
        for (int i = 0; i < N; i++) a[i] = (float)i;
        CHECK_STATUS(run(dev, lib, "affine_3", a, out, NULL), ENIGMA_OK);
        CHECK(out[5] == 5.0f * 4.0f + bias);
        CHECK_STATUS(run(dev, lib, "xor_4", a, out, NULL), ENIGMA_ERROR_INTERNAL);
        CHECK_ERROR_HAS("xor_4 is refused here");
        CHECK_STATUS(run(dev, lib, "reverse_5", a, out, NULL), ENIGMA_OK);
        CHECK(out[0] == 63.0f * 5.0f + bias);
    }
    enigma_library_destroy(lib);
    unsetenv("ENIGMA_CC");
    unlink(script);
}

int main(void) {
    make_source();
    enigma_library *probe = NULL;
    if (enigma_library_create_from_source(NULL, source, strlen(source), "batches.metal", NULL, &probe) ==
            ENIGMA_ERROR_UNAVAILABLE)
        RT_SKIP("the front end is not built");
    enigma_library_destroy(probe);
    plan_batches();

    enigma_device *dev = NULL;
    if (enigma_device_open("cpu", &dev) != ENIGMA_OK) RT_SKIP("no cpu backend");
    char dir[] = "/tmp/enigma-test-batches-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("ENIGMA_CACHE_DIR", dir, 1);
    srand((unsigned)time(NULL));
    batched_as_alone(dev, dir);
    checked_batch(dev);
    refused_kernel_in_batch(dev, dir);
    enigma_device_close(dev);

    /* a library of 16 kernels or fewer was built whole: nothing left to build */
    CHECK(enigma_device_open("cpu", &dev) == ENIGMA_OK);
    static const char *small = "kernel void one(device float* o [[buffer(0)]]) { o[0] = 1.0f; }\n";
    enigma_library *lib = NULL;
    CHECK_STATUS(enigma_library_create_from_source(dev, small, strlen(small), "one.metal", NULL, &lib), ENIGMA_OK);
    const char *one[] = {"one"};
    CHECK_STATUS(enigma_library_build_kernels(lib, one, 1), ENIGMA_OK);
    CHECK_STATUS(enigma_library_build_kernels(lib, one, 0), ENIGMA_ERROR_INVALID_ARGUMENT);
    enigma_library_destroy(lib);
    enigma_device_close(dev);

    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    CHECK(system(command) == 0);
    return rt_result("test_batches");
}
