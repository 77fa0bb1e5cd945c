/* cli_compile_many.c — `enigma compile` of a library of many kernels: the kernels built in
 * batches (several to one program: one C compiler or NVRTC run each), several batches at
 * once, with progress on a terminal and one summary line. A kernel that fails does not stop
 * the others: every failure is listed, and the exit code says there was one.
 *
 * This is how a kernel library (ggml's 689 kernels, MLX's 16,000) is checked whole. Built
 * as one program it would be one enormous translation unit; built a kernel at a time (what
 * a pipeline of it costs) it pays the compiler's start and prelude once per kernel, which
 * is a third of gcc's time for a small kernel (0.1 of 0.3 s for a kernel of MLX's
 * unary.metal) and more of the wall time on a busy machine.
 * enigma_library_plan_batches cuts the batches; --batch 1 builds each kernel alone.
 *
 * A batch that fails is built again a kernel at a time, so that the report names the
 * kernel that failed and why, as a build of that kernel alone says it. */
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
    const char **names;             /* the kernels as asked */
    int count;
    const char **batched;           /* the same names by batch: batch b is batched[start[b] .. start[b + 1]) */
    int *asked;                     /* batched[i] is names[asked[i]] */
    int *start;
    int batch_count;
    atomic_int next, done;
    pthread_mutex_t lock;           /* the progress line */
    char **errors;                  /* per kernel as asked: NULL, or why it failed */
    char **notes;                   /* per batch: NULL, or why it failed whole though each kernel built */
    bool progress;
} job;

static double seconds_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* kernel batched[i] alone, as its pipeline builds it: its error kept by the kernel's name */
static void build_alone(job *j, int i) {
    enigma_status st;
    if (j->offline) {
        char *summary = NULL;
        st = enigma_library_build_offline_kernel(j->lib, j->backend, j->batched[i], &summary);
        enigma_free(summary);
    } else {
        enigma_pipeline *p = NULL;
        st = enigma_pipeline_create(j->lib, j->batched[i], &p);
        enigma_pipeline_destroy(p);
    }
    /* enigma_last_error is per thread */
    if (st != ENIGMA_OK) j->errors[j->asked[i]] = strdup(enigma_last_error());
}

static void build_batch(job *j, int b) {
    int first = j->start[b], n = j->start[b + 1] - first;
    if (n == 1) {
        build_alone(j, first);
        return;
    }
    enigma_status st;
    if (j->offline) {
        char *summary = NULL;
        st = enigma_library_build_offline_kernels(j->lib, j->backend, j->batched + first, n, &summary);
        enigma_free(summary);
    } else {
        st = enigma_library_build_kernels(j->lib, j->batched + first, n);
    }
    if (st == ENIGMA_OK && j->offline) return;
    if (st == ENIGMA_OK) { /* built: each pipeline now only takes its kernel from the batch */
        for (int i = first; i < first + n; i++) build_alone(j, i);
        return;
    }
    /* which kernel failed, and why, as its build alone says it */
    char *whole = strdup(enigma_last_error());
    bool a_kernel_failed = false;
    for (int i = first; i < first + n; i++) {
        build_alone(j, i);
        if (j->errors[j->asked[i]]) a_kernel_failed = true;
    }
    /* else the batch failed, not a kernel: worth telling, as a kernel's build should not
     * depend on which others share its program */
    if (!a_kernel_failed && whole) {
        char *line_end = strchr(whole, '\n');
        if (line_end) *line_end = '\0';
        size_t size = strlen(whole) + strlen(j->batched[first]) + strlen(j->batched[first + n - 1]) + 128;
        j->notes[b] = malloc(size);
        if (j->notes[b])
            snprintf(j->notes[b], size,
                     "the batch of %d kernels %s to %s failed as one program, though each built alone: %s", n,
                     j->batched[first], j->batched[first + n - 1], whole);
    }
    free(whole);
}

static void *worker(void *arg) {
    job *j = arg;
    for (;;) {
        int b = atomic_fetch_add(&j->next, 1);
        if (b >= j->batch_count) break;
        build_batch(j, b);
        int done = atomic_fetch_add(&j->done, j->start[b + 1] - j->start[b]) + j->start[b + 1] - j->start[b];
        if (j->progress) {
            pthread_mutex_lock(&j->lock);
            fprintf(stderr, "\rbuilt %d of %d kernels", done, j->count);
            pthread_mutex_unlock(&j->lock);
        }
    }
    return NULL;
}

/* orders the kernels by batch (enigma_library_plan_batches; one kernel a batch where it
 * refuses them, e.g. a -k that names no kernel: that kernel's own build then says so) */
static bool plan(job *j, int batch_size, int jobs) {
    int *batch_of = malloc(sizeof *batch_of * (size_t)j->count);
    j->batched = malloc(sizeof *j->batched * (size_t)j->count);
    j->asked = malloc(sizeof *j->asked * (size_t)j->count);
    j->start = NULL;
    if (!batch_of || !j->batched || !j->asked) {
        free(batch_of);
        return false;
    }
    int batches = 0;
    if (batch_size == 1 || enigma_library_plan_batches(j->lib, j->backend, j->names, j->count, batch_size, jobs,
                                                       batch_of, &batches) != ENIGMA_OK) {
        for (int i = 0; i < j->count; i++) batch_of[i] = i;
        batches = j->count;
    }
    j->start = calloc((size_t)batches + 2, sizeof *j->start);
    if (!j->start) {
        free(batch_of);
        return false;
    }
    /* counting sort by batch, keeping the asked order inside each */
    for (int i = 0; i < j->count; i++) j->start[batch_of[i] + 2]++;
    for (int b = 0; b < batches; b++) j->start[b + 2] += j->start[b + 1];
    for (int i = 0; i < j->count; i++) {
        int at = j->start[batch_of[i] + 1]++;
        j->batched[at] = j->names[i];
        j->asked[at] = i;
    }
    j->batch_count = batches;
    free(batch_of);
    return true;
}

int cli_build_kernels(enigma_library *lib, const char *file, const char *backend, bool offline, const char **names,
                      int count, int jobs, int batch_size, struct timespec started) {
    job j = {.lib = lib, .backend = backend, .offline = offline, .names = names, .count = count,
             .progress = isatty(2) != 0};
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    if (jobs < 1) jobs = 1;
    j.errors = calloc((size_t)(count ? count : 1), sizeof *j.errors);
    bool planned = count == 0 || plan(&j, batch_size, jobs);
    j.notes = calloc((size_t)j.batch_count + 1, sizeof *j.notes);
    if (!j.errors || !planned || !j.notes) {
        free(j.errors);
        free(j.notes);
        free(j.batched);
        free(j.asked);
        free(j.start);
        return cli_error(EXIT_RUNTIME, "out of memory");
    }
    pthread_mutex_init(&j.lock, NULL);
    if (jobs > j.batch_count) jobs = j.batch_count ? j.batch_count : 1;
    pthread_t *threads = calloc((size_t)jobs, sizeof *threads);
    int running = 0;
    for (int t = 0; threads && t < jobs; t++)
        if (pthread_create(&threads[t], NULL, worker, &j) == 0) running++;
    if (running == 0) worker(&j); /* no threads to be had: build here */
    for (int t = 0; t < running; t++) pthread_join(threads[t], NULL);
    free(threads);
    if (j.progress) fprintf(stderr, "\n");
    int failed = 0;
    for (int i = 0; i < count; i++)
        if (j.errors[i]) {
            failed++;
            fprintf(stderr, "enigma: kernel %s: %s\n", names[i], j.errors[i]);
            free(j.errors[i]);
        }
    for (int b = 0; b < j.batch_count; b++)
        if (j.notes[b]) {
            fprintf(stderr, "enigma: note: %s\n", j.notes[b]);
            free(j.notes[b]);
        }
    pthread_mutex_destroy(&j.lock);
    printf("%s: %s: %d of %d kernel%s built%s in %.1f s (%d at a time, %d batch%s)\n", file, backend, count - failed,
           count, count == 1 ? "" : "s", offline ? " by NVRTC" : "", seconds_since(&started), running ? running : 1,
           j.batch_count, j.batch_count == 1 ? "" : "es");
    free(j.errors);
    free(j.notes);
    free(j.batched);
    free(j.asked);
    free(j.start);
    return failed ? EXIT_RUNTIME : EXIT_OK;
}
