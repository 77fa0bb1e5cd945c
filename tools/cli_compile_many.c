/* cli_compile_many.c — `enigma compile` of a library of many kernels: each kernel built on
 * its own (a pipeline on the cpu backend, NVRTC without a GPU on cuda), several at once,
 * with progress on a terminal and one summary line. A kernel that fails does not stop the
 * others: every failure is listed, and the exit code says there was one.
 *
 * This is how a kernel library (ggml's 689 kernels) is checked whole: built as one program
 * it would be one enormous translation unit; built per kernel it is what a pipeline of it
 * costs, in parallel. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

typedef struct job {
    enigma_library *lib;
    const char *backend;
    bool offline;                   /* cuda without a GPU: NVRTC */
    const char **names;
    int count;
    atomic_int next, done;
    pthread_mutex_t lock;           /* the failure list and the progress line */
    char **errors;                  /* per kernel: NULL, or why it failed */
    bool progress;
} job;

static double seconds_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void *worker(void *arg) {
    job *j = arg;
    for (;;) {
        int i = atomic_fetch_add(&j->next, 1);
        if (i >= j->count) break;
        enigma_status st;
        if (j->offline) {
            char *summary = NULL;
            st = enigma_library_build_offline_kernel(j->lib, j->backend, j->names[i], &summary);
            enigma_free(summary);
        } else {
            enigma_pipeline *p = NULL;
            st = enigma_pipeline_create(j->lib, j->names[i], &p);
            enigma_pipeline_destroy(p);
        }
        /* enigma_last_error is per thread */
        if (st != ENIGMA_OK) j->errors[i] = strdup(enigma_last_error());
        int done = atomic_fetch_add(&j->done, 1) + 1;
        if (j->progress) {
            pthread_mutex_lock(&j->lock);
            fprintf(stderr, "\rbuilt %d of %d kernels", done, j->count);
            pthread_mutex_unlock(&j->lock);
        }
    }
    return NULL;
}

int cli_build_kernels(enigma_library *lib, const char *file, const char *backend, bool offline, const char **names,
                      int count, int jobs) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    job j = {.lib = lib, .backend = backend, .offline = offline, .names = names, .count = count,
             .progress = isatty(2) != 0};
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    pthread_mutex_init(&j.lock, NULL);
    j.errors = calloc((size_t)(count ? count : 1), sizeof *j.errors);
    if (!j.errors) return cli_error(EXIT_RUNTIME, "out of memory");
    if (jobs < 1) jobs = 1;
    if (jobs > count) jobs = count ? count : 1;
    pthread_t *threads = calloc((size_t)jobs, sizeof *threads);
    int started = 0;
    for (int t = 0; threads && t < jobs; t++)
        if (pthread_create(&threads[t], NULL, worker, &j) == 0) started++;
    if (started == 0) worker(&j); /* no threads to be had: build here */
    for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
    free(threads);
    if (j.progress) fprintf(stderr, "\n");
    int failed = 0;
    for (int i = 0; i < count; i++)
        if (j.errors[i]) {
            failed++;
            fprintf(stderr, "enigma: kernel %s: %s\n", names[i], j.errors[i]);
            free(j.errors[i]);
        }
    free(j.errors);
    pthread_mutex_destroy(&j.lock);
    printf("%s: %s: %d of %d kernel%s built%s in %.1f s (%d at a time)\n", file, backend, count - failed, count,
           count == 1 ? "" : "s", offline ? " by NVRTC" : "", seconds_since(&t0), started ? started : 1);
    return failed ? EXIT_RUNTIME : EXIT_OK;
}
