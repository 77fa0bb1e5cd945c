/* test_robust.c — no kernel takes its host down (issue 14), through the C API on the cpu
 * backend: a wild write, a wild read, an endless loop past its time limit, and an endless
 * loop cancelled from another thread each return an error naming the kernel, the process
 * stays alive, and 100 further dispatches compute right (checked against a plain C
 * reference from fresh random inputs). Null pointers cannot be formed in MSL, recursion is
 * not allowed and locals are capped at 64 KiB per thread, so neither can fault here;
 * integer division by zero does not trap in enigma's generated C (it gives 0). */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "../test_util.h"

static const char source[] =
    "kernel void wild_write(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    a[i * 100000000u] = 1.0f;\n"
    "}\n"
    "kernel void wild_read(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    a[i] = a[i + 300000000u];\n"
    "}\n"
    "kernel void endless(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    int n = 0;\n"
    "    while (a[0] == 0.0f) n++;\n"
    "    a[1] = float(n);\n"
    "}\n"
    "kernel void divide(device int *a [[buffer(0)]], device const int *b [[buffer(1)]],\n"
    "                   uint i [[thread_position_in_grid]]) {\n"
    "    a[i] = a[i] / b[i];\n"
    "}\n"
    "kernel void saxpy(device const float *x [[buffer(0)]], device float *y [[buffer(1)]],\n"
    "                  constant float &k [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "    y[i] = k * x[i] + y[i];\n"
    "}\n";

static enigma_device *dev;
static enigma_library *lib;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static enigma_command *command_for(const char *kernel, enigma_pipeline **p) {
    enigma_command *cmd = NULL;
    REQUIRE(enigma_pipeline_create(lib, kernel, p));
    REQUIRE(enigma_command_create(*p, &cmd));
    return cmd;
}

/* a dispatch of `kernel` over `n` threads on a zeroed buffer: its status and message */
static enigma_status run_one(const char *kernel, uint32_t n, uint64_t timeout_ns, char *message, size_t size) {
    enigma_pipeline *p;
    enigma_command *cmd = command_for(kernel, &p);
    enigma_buffer *a;
    REQUIRE(enigma_buffer_create(dev, 4096, &a));
    REQUIRE(enigma_command_set_buffer(cmd, 0, a, 0));
    if (timeout_ns) REQUIRE(enigma_command_set_timeout(cmd, timeout_ns));
    enigma_size3 grid = {n, 1, 1}, group = {32, 1, 1};
    enigma_status st = enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group);
    snprintf(message, size, "%s", enigma_last_error());
    enigma_buffer_destroy(a);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    return st;
}

/* saxpy over fresh random data, compared with a C reference: the device still works */
static void check_saxpy_still_right(int rounds) {
    enigma_pipeline *p;
    enigma_command *cmd = command_for("saxpy", &p);
    enum { N = 1000 };
    static float x[N], y[N], want[N], got[N];
    int wrong = 0;
    for (int r = 0; r < rounds; r++) {
        float k = (float)(rnd() % 1000) / 250.0f - 2.0f;
        for (int i = 0; i < N; i++) {
            x[i] = (float)(rnd() % 20001) / 1000.0f - 10.0f;
            y[i] = (float)(rnd() % 20001) / 1000.0f - 10.0f;
            want[i] = k * x[i] + y[i];
        }
        enigma_buffer *bx, *by;
        REQUIRE(enigma_buffer_create_with_data(dev, x, sizeof x, &bx));
        REQUIRE(enigma_buffer_create_with_data(dev, y, sizeof y, &by));
        REQUIRE(enigma_command_set_buffer(cmd, 0, bx, 0));
        REQUIRE(enigma_command_set_buffer(cmd, 1, by, 0));
        REQUIRE(enigma_command_set_bytes(cmd, 2, &k, sizeof k));
        enigma_size3 grid = {N, 1, 1}, group = {64, 1, 1};
        OK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group));
        OK(enigma_buffer_read(by, 0, got, sizeof got));
        for (int i = 0; i < N; i++) {
            float d = got[i] - want[i];
            if (d > 1e-4f || d < -1e-4f) wrong++;
        }
        enigma_buffer_destroy(bx);
        enigma_buffer_destroy(by);
    }
    CHECK(wrong == 0, "%d wrong elements over %d dispatches after the faults", wrong, rounds);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
}

static void expect_fault(const char *kernel) {
    char msg[1024];
    enigma_status st = run_one(kernel, 64, 0, msg, sizeof msg);
    CHECK(st == ENIGMA_ERROR_RUNTIME, "%s: %s: %s", kernel, enigma_status_name(st), msg);
    char named[128];
    snprintf(named, sizeof named, "kernel '%s'", kernel);
    CHECK(strstr(msg, named) && strstr(msg, "SIGSEGV") && strstr(msg, "buffer 'a' (buffer(0), 4096 bytes)") &&
              strstr(msg, "in threadgroup ("),
          "%s's message names the kernel, the signal, the buffer and the threadgroup: %s", kernel, msg);
    check_saxpy_still_right(100);
}

typedef struct canceller {
    enigma_command *cmd;
    double at;
} canceller;

static void *cancel_later(void *arg) {
    canceller *c = arg;
    struct timespec pause = {0, 150 * 1000 * 1000};
    nanosleep(&pause, NULL);
    c->at = now_s();
    if (enigma_command_cancel(c->cmd) != ENIGMA_OK) fprintf(stderr, "cancel: %s\n", enigma_last_error());
    return NULL;
}

int main(void) {
    rnd_seed_from_clock();
    enigma_status st = enigma_device_open("cpu", &dev);
    if (st == ENIGMA_ERROR_UNAVAILABLE) return 77;
    REQUIRE(st);
    st = enigma_library_create_from_source(dev, source, sizeof source - 1, "robust.metal", NULL, &lib);
    if (st == ENIGMA_ERROR_COMPILE) fputs(enigma_library_diagnostics_text(lib), stderr);
    REQUIRE(st);

    expect_fault("wild_write");
    expect_fault("wild_read");
    expect_fault("wild_write"); /* again, after the device has recovered once */

    /* an endless kernel returns within its limit + 100 ms, naming the kernel */
    char msg[1024];
    double t0 = now_s();
    st = run_one("endless", 256, 300u * 1000 * 1000, msg, sizeof msg);
    double took = now_s() - t0;
    CHECK(st == ENIGMA_ERROR_TIMEOUT, "endless: %s: %s", enigma_status_name(st), msg);
    CHECK(took >= 0.3 && took < 0.4, "the timed-out dispatch took %.3f s (limit 0.3 s)", took);
    CHECK(strstr(msg, "kernel 'endless'") && strstr(msg, "time limit of 0.300 s"), "%s", msg);
    check_saxpy_still_right(100);

    /* 1024 threadgroups: workers claim runs of them, but the message counts the groups
     * that started, and an endless group never ends, so at most one per worker */
    st = run_one("endless", 32768, 200u * 1000 * 1000, msg, sizeof msg);
    CHECK(st == ENIGMA_ERROR_TIMEOUT, "endless x1024: %s: %s", enigma_status_name(st), msg);
    enigma_device_info info;
    REQUIRE(enigma_device_get_info(dev, &info));
    const char *of = strstr(msg, " of 1024 threadgroups had started");
    unsigned long long started = 0;
    if (of) {
        const char *p = of;
        while (p > msg && p[-1] >= '0' && p[-1] <= '9') p--;
        started = strtoull(p, NULL, 10);
    }
    CHECK(of && started >= 1 && started <= info.compute_units, "%llu groups started on %u workers: %s", started,
          info.compute_units, msg);
    check_saxpy_still_right(10);

    /* cancelled from another thread */
    enigma_pipeline *p;
    enigma_command *cmd = command_for("endless", &p);
    enigma_buffer *a;
    REQUIRE(enigma_buffer_create(dev, 4096, &a));
    REQUIRE(enigma_command_set_buffer(cmd, 0, a, 0));
    canceller c = {.cmd = cmd};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, cancel_later, &c) == 0 ? ENIGMA_OK : ENIGMA_ERROR_INTERNAL);
    enigma_size3 grid = {256, 1, 1}, group = {32, 1, 1};
    st = enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group);
    double returned = now_s();
    pthread_join(t, NULL);
    CHECK(st == ENIGMA_ERROR_CANCELLED, "cancelled: %s: %s", enigma_status_name(st), enigma_last_error());
    CHECK(strstr(enigma_last_error(), "kernel 'endless'") != NULL, "%s", enigma_last_error());
    CHECK(returned - c.at < 0.1, "the dispatch returned %.3f s after the cancel", returned - c.at);
    OK(enigma_command_cancel(cmd)); /* nothing running: nothing happens */
    enigma_buffer_destroy(a);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    check_saxpy_still_right(100);

    /* integer division by zero does not trap */
    int num[4] = {5, 6, 7, 8}, den[4] = {1, 0, 2, 0}, q[4];
    enigma_buffer *bn, *bd;
    cmd = command_for("divide", &p);
    REQUIRE(enigma_buffer_create_with_data(dev, num, sizeof num, &bn));
    REQUIRE(enigma_buffer_create_with_data(dev, den, sizeof den, &bd));
    REQUIRE(enigma_command_set_buffer(cmd, 0, bn, 0));
    REQUIRE(enigma_command_set_buffer(cmd, 1, bd, 0));
    enigma_size3 four = {4, 1, 1};
    OK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, four, four));
    OK(enigma_buffer_read(bn, 0, q, sizeof q));
    CHECK(q[0] == 5 && q[2] == 3, "division results %d %d", q[0], q[2]);
    enigma_buffer_destroy(bn);
    enigma_buffer_destroy(bd);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);

    /* a buffer larger than the machine is refused with its size, not overcommitted */
    enigma_buffer *huge = NULL;
    st = enigma_buffer_create(dev, (size_t)1 << 62, &huge);
    CHECK(st == ENIGMA_ERROR_OUT_OF_MEMORY && strstr(enigma_last_error(), "4611686018427387904 bytes"),
          "huge buffer: %s: %s", enigma_status_name(st), enigma_last_error());

    enigma_library_destroy(lib);
    enigma_device_close(dev);
    fprintf(stderr, "test_robust: %d failures\n", failures);
    return failures ? 1 : 0;
}
