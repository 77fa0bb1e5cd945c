/* group_cost.c — what one threadgroup of a bench kernel costs on one worker, with its input
 * in cache: the best of many dispatches over a small input, in ns a threadgroup. The
 * bandwidth rows of cpu_bench move with the machine's memory (its ceiling reads 31-58 GB/s
 * within minutes); this figure depends on the generated code and the core alone, so two
 * builds compared in alternation show a change in the code that the rows would hide.
 *
 *   seed003  seed 003's tree reduction: 1,024 groups of 256 ints (1 MiB), one atomic a group
 *   softmax  the row softmax: 32 rows of 4,096 floats (512 KiB in, 512 KiB out)
 *
 * Every dispatch's result is checked (the exact sum; one row against a double softmax).
 * usage: group_cost [--repeats N] [KERNEL_DIR]   (default: 400, bench/kernels) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_PROGRAM "group_cost"
#include "bench.h"

static enigma_device *dev;
static const char *kernel_dir = "bench/kernels";
static int repeats = 400;

static enigma_command *command_for(const char *file, const char *kernel) {
    enigma_command *cmd;
    CHECK(enigma_command_create(bench_load(dev, kernel_dir, file, kernel, NULL, NULL), &cmd));
    return cmd; /* library and pipeline live as long as the process */
}

static void seed003(void) {
    enum { THREADS = 256, GROUPS = 1024, N = THREADS * GROUPS };
    int32_t *x = malloc(N * sizeof *x);
    long long reference = 0;
    for (int i = 0; i < N; i++) reference += x[i] = rand() % 201 - 100;
    enigma_command *cmd = command_for("seed003_reduce.metal", "reduce");
    enigma_buffer *in, *out;
    CHECK(enigma_buffer_create_with_data(dev, x, N * sizeof *x, &in));
    CHECK(enigma_buffer_create(dev, sizeof(int32_t), &out));
    CHECK(enigma_command_set_buffer(cmd, 0, in, 0));
    CHECK(enigma_command_set_buffer(cmd, 1, out, 0));
    CHECK(enigma_command_set_threadgroup_memory(cmd, 0, THREADS * sizeof(int32_t)));
    double best = INFINITY;
    for (int r = 0; r < repeats; r++) {
        int32_t zero = 0, got;
        CHECK(enigma_buffer_write(out, 0, &zero, sizeof zero));
        double t0 = now_s();
        CHECK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){GROUPS, 1, 1},
                                      (enigma_size3){THREADS, 1, 1}));
        double t = now_s() - t0;
        best = t < best ? t : best;
        CHECK(enigma_buffer_read(out, 0, &got, sizeof got));
        if (got != (int32_t)reference) {
            fprintf(stderr, "group_cost: seed 003 sum %d, expected %lld\n", got, reference);
            exit(1);
        }
    }
    printf("seed003  %8.1f ns a threadgroup (256 ints)\n", best / GROUPS * 1e9);
    free(x);
}

static void softmax(void) {
    enum { ROWS = 32, COLS = 4096 };
    const uint32_t cols = COLS;
    float *x = malloc(ROWS * COLS * sizeof *x), *y = malloc(ROWS * COLS * sizeof *y);
    for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)rand() / (float)RAND_MAX * 20 - 10;
    enigma_command *cmd = command_for("softmax.metal", "softmax_rows");
    enigma_buffer *in, *out;
    CHECK(enigma_buffer_create_with_data(dev, x, ROWS * COLS * sizeof *x, &in));
    CHECK(enigma_buffer_create(dev, ROWS * COLS * sizeof *y, &out));
    CHECK(enigma_command_set_buffer(cmd, 0, in, 0));
    CHECK(enigma_command_set_buffer(cmd, 1, out, 0));
    CHECK(enigma_command_set_bytes(cmd, 2, &cols, sizeof cols));
    double best = INFINITY;
    for (int r = 0; r < repeats; r++) {
        double t0 = now_s();
        CHECK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){ROWS, 1, 1},
                                      (enigma_size3){256, 1, 1}));
        double t = now_s() - t0;
        best = t < best ? t : best;
    }
    CHECK(enigma_buffer_read(out, 0, y, ROWS * COLS * sizeof *y));
    bench_check_softmax_row(x, y, COLS, (uint32_t)(rand() % ROWS));
    printf("softmax  %8.1f ns a threadgroup (a row of 4096 floats)\n", best / ROWS * 1e9);
    free(x);
    free(y);
}

int main(int argc, char **argv) {
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            printf("usage: group_cost [--repeats N] [KERNEL_DIR]\n"
                   "The cost of one threadgroup of seed 003's reduction and of the row softmax on one\n"
                   "worker of the cpu backend, input in cache: the best of N dispatches (default 400),\n"
                   "in ns a threadgroup. KERNEL_DIR defaults to bench/kernels.\n");
            return 0;
        } else if (!strcmp(argv[a], "--repeats") && a + 1 < argc) {
            repeats = atoi(argv[++a]);
            if (repeats < 1) {
                fprintf(stderr, "group_cost: --repeats wants a count of at least 1\n");
                return 1;
            }
        } else if (argv[a][0] == '-') {
            fprintf(stderr, "group_cost: unknown option %s (see --help)\n", argv[a]);
            return 1;
        } else {
            kernel_dir = argv[a];
        }
    }
    srand((unsigned)time(NULL));
    setenv("ENIGMA_NUM_THREADS", "1", 1); /* one worker: the figure is a core's */
    CHECK(enigma_device_open("cpu", &dev));
    seed003();
    softmax();
    return 0;
}
