/* test_remote.c — the cuda backend's recovery from kernel faults, through the public API,
 * on a machine without a GPU: ENIGMA_LIBCUDA points the library (and its CUDA worker, which
 * inherits the environment) at fake_libcuda.so, whose faults are sticky for the whole
 * process as the real driver's are. Kernels are compiled by the real NVRTC (skipped, 77,
 * where it is absent). One mode per run, because a fault poisons the test process for good:
 *   recover  a fault in this process: ENIGMA_ERROR_RUNTIME naming the kernel and saying a
 *            fresh worker process took over; buffers from before refused as lost; new
 *            buffers round-trip fresh random bytes exactly (several copy chunks); a later
 *            dispatch computes right; a second fault, inside the worker, gets another
 *            worker; a device opened after the fault works on the worker; closing leaves
 *            no child process behind
 *   isolate  ENIGMA_CUDA_ISOLATE=1: the worker from the start (no kernel runs in this
 *            process); a worker killed while idle, and one killed in the middle of a wait,
 *            are both replaced and named in the message
 *   missing  no worker executable (ENIGMA_CUDA_WORKER=/nonexistent/...): the fault's
 *            message names the path, the device is lost with both reasons, later calls
 *            are refused cleanly; ISOLATE=1 then fails to open, naming the path
 *   no-param-info  a worker whose driver cannot report parameter layouts refuses launches
 *            with a message that says so (never a launch with a guessed layout)
 *   two-devices  two isolated devices share the worker: a fault on one costs the other its
 *            context once (its old handles are refused, not sent), then both work on the
 *            same new worker
 *   threads  four threads copy fresh bytes through their own buffers while kernels fault
 *            twice: each copy is exact or refused with a message saying why; the device
 *            works afterwards (run it under the sanitizers: it is the test of the locking)
 * Results are checked against host references from fresh random inputs. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../test_util.h"

static const char *source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void affine(device uint *out [[buffer(0)]], constant uint &k [[buffer(1)]],\n"
    "                   uint gid [[thread_position_in_grid]]) {\n"
    "    out[gid] = gid * 7u + k;\n"
    "}\n"
    "kernel void fault_far(device float *p [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
    "    p[gid + 268435456u] = 1.0f;\n"
    "}\n"
    "kernel void hang(device uint *p [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
    "    while (p[0] == 0u) { p[1] = gid; }\n"
    "}\n";

/* the worker processes this process has (children named enigma-cuda-worker), their pids
 * in `pids`; read from /proc, so that the test sees what the library does not say */
static int workers(pid_t *pids, int cap) {
    DIR *dir = opendir("/proc");
    int count = 0;
    if (!dir) return -1;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        char path[300], stat[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = 0;
        char *close_paren = strrchr(stat, ')');
        int ppid = 0;
        char state = 0;
        if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2) continue;
        if (ppid == getpid() && strstr(stat, "(enigma-cuda-wor") && state != 'Z') {
            if (count < cap) pids[count] = (pid_t)atoi(e->d_name);
            count++;
        }
    }
    closedir(dir);
    return count;
}

/* no child of this process is left, not even a zombie */
static void check_no_children(const char *when) {
    errno = 0;
    pid_t r = waitpid(-1, NULL, WNOHANG);
    CHECK(r == -1 && errno == ECHILD, "%s: waitpid(-1) gave %d (%s): a child process is left", when, (int)r,
          strerror(errno));
}

static enigma_library *build(enigma_device *dev) {
    enigma_library *lib = NULL;
    enigma_status st = enigma_library_create_from_source(dev, source, strlen(source), "remote.metal", NULL, &lib);
    if (st != ENIGMA_OK) {
        fprintf(stderr, "build: %s: %s\n%s\n", enigma_status_name(st), enigma_last_error(),
                lib ? enigma_library_diagnostics_text(lib) : "");
        exit(1);
    }
    return lib;
}

static enigma_command *command(enigma_library *lib, const char *kernel, enigma_pipeline **p) {
    REQUIRE(enigma_pipeline_create(lib, kernel, p));
    enigma_command *c = NULL;
    REQUIRE(enigma_command_create(*p, &c));
    return c;
}

/* affine over n fresh threads with a fresh k, checked against out[i] = i * 7 + k */
static void check_affine(enigma_device *dev, enigma_library *lib, uint32_t n, const char *when) {
    enigma_pipeline *p;
    enigma_command *c = command(lib, "affine", &p);
    enigma_buffer *out = NULL;
    uint32_t k = (uint32_t)rnd() | 1u;
    REQUIRE(enigma_buffer_create(dev, n * 4u, &out));
    OK(enigma_command_set_buffer(c, 0, out, 0));
    OK(enigma_command_set_bytes(c, 1, &k, 4));
    enigma_status st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){n, 1, 1}, (enigma_size3){64, 1, 1});
    CHECK(st == ENIGMA_OK, "%s: affine gave %s: %s", when, enigma_status_name(st), enigma_last_error());
    uint32_t *got = calloc(n, 4);
    OK(enigma_buffer_read(out, 0, got, n * 4u));
    int wrong = 0;
    for (uint32_t i = 0; i < n && st == ENIGMA_OK; i++)
        if (got[i] != i * 7u + k && wrong++ < 3) CHECK(0, "%s: affine[%u] = %u, want %u", when, i, got[i], i * 7u + k);
    free(got);
    enigma_buffer_destroy(out);
    enigma_command_destroy(c);
    enigma_pipeline_destroy(p);
}

/* fresh random bytes through a new buffer, written then read back exactly; `bytes` spans
 * several of the worker's copy chunks, and a partial write at an odd offset follows */
static void check_round_trip(enigma_device *dev, size_t bytes, const char *when) {
    unsigned char *data = malloc(bytes), *back = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) data[i] = (unsigned char)(rnd() >> 24);
    enigma_buffer *b = NULL;
    enigma_status st = enigma_buffer_create_with_data(dev, data, bytes, &b);
    CHECK(st == ENIGMA_OK, "%s: a new buffer gave %s: %s", when, enigma_status_name(st), enigma_last_error());
    if (st == ENIGMA_OK) {
        size_t at = bytes / 3 | 1, n = bytes / 3;
        for (size_t i = 0; i < n; i++) data[at + i] = (unsigned char)(rnd() >> 24);
        OK(enigma_buffer_write(b, at, data + at, n));
        memset(back, 0, bytes);
        OK(enigma_buffer_read(b, 0, back, bytes));
        CHECK(memcmp(back, data, bytes) == 0, "%s: %zu bytes came back different", when, bytes);
        enigma_buffer_destroy(b);
    }
    free(data);
    free(back);
}

/* dispatches fault_far; the status and message must say the device recovered */
static void fault_and_recover(enigma_device *dev, enigma_library *lib, const char *when) {
    enigma_pipeline *p;
    enigma_command *c = command(lib, "fault_far", &p);
    enigma_buffer *b = NULL;
    REQUIRE(enigma_buffer_create(dev, 256, &b));
    OK(enigma_command_set_buffer(c, 0, b, 0));
    enigma_status st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1});
    const char *msg = enigma_last_error();
    fprintf(stderr, "note: %s: %s\n", when, msg);
    CHECK(st == ENIGMA_ERROR_RUNTIME, "%s: the fault gave %s: %s", when, enigma_status_name(st), msg);
    CHECK(strstr(msg, "'fault_far'") != NULL, "%s: the message names the kernel: %s", when, msg);
    CHECK(strstr(msg, "CUDA_ERROR_ILLEGAL_ADDRESS") != NULL, "%s: the message gives the fault: %s", when, msg);
    CHECK(strstr(msg, "fresh worker process") != NULL, "%s: the message says a fresh worker took over: %s", when, msg);
    enigma_buffer_destroy(b);
    enigma_command_destroy(c);
    enigma_pipeline_destroy(p);
}

static void check_lost_buffer(enigma_buffer *before, const char *when) {
    uint32_t x = 0;
    enigma_status st = enigma_buffer_read(before, 0, &x, 4);
    const char *msg = enigma_last_error();
    CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "lost") != NULL,
          "%s: a buffer from before the fault gave %s: %s", when, enigma_status_name(st), msg);
}

static int test_recover(void) {
    enigma_device *dev = NULL;
    REQUIRE(enigma_device_open("cuda", &dev));
    enigma_library *lib = build(dev);
    pid_t pids[8];
    CHECK(workers(pids, 8) == 0, "no worker before any fault");
    check_affine(dev, lib, 1000, "in this process");
    enigma_buffer *before = NULL;
    REQUIRE(enigma_buffer_create(dev, 64, &before));

    fault_and_recover(dev, lib, "the first fault (in this process)");
    CHECK(workers(pids, 8) == 1, "one worker after the first fault");
    pid_t first = pids[0];
    check_lost_buffer(before, "after the first fault");
    enigma_buffer_destroy(before);
    check_round_trip(dev, 3u * 1024 * 1024 + 123, "after the first fault");
    check_affine(dev, lib, 1000 + (uint32_t)(rnd() % 3000), "after the first fault");

    REQUIRE(enigma_buffer_create(dev, 64, &before));
    fault_and_recover(dev, lib, "the second fault (in the worker)");
    int count = workers(pids, 8);
    CHECK(count == 1 && pids[0] != first, "a new worker after the second fault (%d workers, pid %d, first %d)", count,
          (int)pids[0], (int)first);
    check_lost_buffer(before, "after the second fault");
    enigma_buffer_destroy(before);
    check_round_trip(dev, 100000, "after the second fault");
    check_affine(dev, lib, 777, "after the second fault");
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    CHECK(workers(pids, 8) == 0, "closing the device ends the worker");
    check_no_children("after closing the device");

    /* the driver refuses this process a context for good: a new device goes to a worker */
    enigma_status st = enigma_device_open("cuda", &dev);
    CHECK(st == ENIGMA_OK, "a device opened after the fault gave %s: %s", enigma_status_name(st), enigma_last_error());
    if (st == ENIGMA_OK) {
        lib = build(dev);
        CHECK(workers(pids, 8) == 1, "the new device runs on a worker");
        check_affine(dev, lib, 500, "on a device opened after the fault");
        check_round_trip(dev, 4096, "on a device opened after the fault");
        enigma_library_destroy(lib);
        enigma_device_close(dev);
    }
    check_no_children("after closing the second device");
    return 0;
}

static void *kill_soon(void *arg) {
    pid_t pid = *(pid_t *)arg;
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
    kill(pid, SIGKILL);
    return NULL;
}

static int test_isolate(void) {
    setenv("ENIGMA_CUDA_ISOLATE", "1", 1);
    enigma_device *dev = NULL;
    REQUIRE(enigma_device_open("cuda", &dev));
    pid_t pids[8];
    CHECK(workers(pids, 8) == 1, "ENIGMA_CUDA_ISOLATE=1 starts the worker at open");
    enigma_library *lib = build(dev);
    check_affine(dev, lib, 2048, "isolated");
    check_round_trip(dev, 2u * 1024 * 1024, "isolated");

    /* a worker killed between calls: the next call reports it, and the one after works */
    enigma_buffer *before = NULL;
    REQUIRE(enigma_buffer_create(dev, 64, &before));
    if (workers(pids, 8) == 1) {
        kill(pids[0], SIGKILL);
        uint32_t x;
        enigma_status st = enigma_buffer_read(before, 0, &x, 4);
        const char *msg = enigma_last_error();
        CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "killed by signal 9") && strstr(msg, "fresh worker process"),
              "a read after the worker was killed gave %s: %s", enigma_status_name(st), msg);
        int count = workers(pids + 1, 7);
        CHECK(count == 1 && pids[1] != pids[0], "a new worker replaced the killed one (%d workers)", count);
    }
    check_lost_buffer(before, "after the worker was killed");
    enigma_buffer_destroy(before);
    check_round_trip(dev, 5000, "after the worker was killed");
    check_affine(dev, lib, 300, "after the worker was killed");

    /* a worker killed in the middle of a wait for a kernel that never ends */
    enigma_pipeline *p;
    enigma_command *c = command(lib, "hang", &p);
    enigma_buffer *b = NULL;
    REQUIRE(enigma_buffer_create(dev, 64, &b));
    OK(enigma_command_set_buffer(c, 0, b, 0));
    REQUIRE(enigma_command_enqueue(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1}));
    pthread_t killer;
    bool killing = workers(pids, 8) == 1 && pthread_create(&killer, NULL, kill_soon, &pids[0]) == 0;
    CHECK(killing, "one worker to kill");
    enigma_status st = enigma_command_wait(c);
    const char *msg = enigma_last_error();
    fprintf(stderr, "note: the worker killed in a wait: %s\n", msg);
    CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "'hang'") && strstr(msg, "killed by signal 9") &&
              strstr(msg, "fresh worker process"),
          "a wait whose worker was killed gave %s: %s", enigma_status_name(st), msg);
    if (killing) pthread_join(killer, NULL);
    enigma_buffer_destroy(b);
    enigma_command_destroy(c);
    enigma_pipeline_destroy(p);
    check_round_trip(dev, 70000, "after the worker died in a wait");
    check_affine(dev, lib, 4096, "after the worker died in a wait");
    fault_and_recover(dev, lib, "a fault in an isolated device");
    check_affine(dev, lib, 64, "after a fault in an isolated device");

    /* isolation: no kernel ran in this process's driver */
    void *fake = dlopen(getenv("ENIGMA_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    int (*launches)(void) = fake ? (int (*)(void))dlsym(fake, "fake_cuda_launches") : NULL;
    CHECK(!launches || launches() == 0, "%d kernels ran in the test process", launches ? launches() : -1);
    if (fake) dlclose(fake);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    check_no_children("after closing the isolated device");
    return 0;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct cancel_arg {
    enigma_command *cmd;
    double at;
} cancel_arg;

static void *cancel_soon(void *arg) {
    cancel_arg *c = arg;
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    c->at = seconds_now();
    if (enigma_command_cancel(c->cmd) != ENIGMA_OK) fprintf(stderr, "cancel: %s\n", enigma_last_error());
    return NULL;
}

/* dispatch time limits and cancellation (issue 14): on the worker, a kernel that never ends
 * is stopped by ending the worker, within the limit + 100 ms, and the device carries on in a
 * fresh one; a device in this process refuses time limits, saying why */
static int test_timeout(void) {
    enigma_device *dev = NULL;
    REQUIRE(enigma_device_open("cuda", &dev));
    enigma_library *lib = build(dev);
    enigma_pipeline *p;
    enigma_command *c = command(lib, "hang", &p);
    enigma_buffer *b = NULL;
    REQUIRE(enigma_buffer_create(dev, 64, &b));
    OK(enigma_command_set_buffer(c, 0, b, 0));
    OK(enigma_command_set_timeout(c, 300u * 1000 * 1000));
    enigma_status st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1});
    CHECK(st == ENIGMA_ERROR_UNAVAILABLE && strstr(enigma_last_error(), "ENIGMA_CUDA_ISOLATE=1"),
          "a time limit in process gave %s: %s", enigma_status_name(st), enigma_last_error());
    CHECK(enigma_command_cancel(c) == ENIGMA_ERROR_UNAVAILABLE, "cancel in process is refused");
    enigma_buffer_destroy(b);
    enigma_command_destroy(c);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);

    setenv("ENIGMA_CUDA_ISOLATE", "1", 1);
    REQUIRE(enigma_device_open("cuda", &dev));
    lib = build(dev);
    check_affine(dev, lib, 256, "isolated, before the time limit");
    pid_t pids[8];
    int before = workers(pids, 8);
    c = command(lib, "hang", &p);
    REQUIRE(enigma_buffer_create(dev, 64, &b));
    OK(enigma_command_set_buffer(c, 0, b, 0));
    OK(enigma_command_set_timeout(c, 300u * 1000 * 1000));
    double t0 = seconds_now();
    st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1});
    double took = seconds_now() - t0;
    const char *msg = enigma_last_error();
    CHECK(st == ENIGMA_ERROR_TIMEOUT && strstr(msg, "kernel 'hang'") && strstr(msg, "time limit of 0.300 s") &&
              strstr(msg, "fresh worker process"),
          "a hang past its limit gave %s: %s", enigma_status_name(st), msg);
    CHECK(took >= 0.3 && took < 0.4, "the timed-out dispatch returned after %.3f s (limit 0.3 s)", took);
    /* SIGKILL is delivered at once but the process takes a moment to die: wait up to 1 s */
    int left = workers(pids + 1, 7);
    for (int i = 0; i < 100 && left != 0; i++) {
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        left = workers(pids + 1, 7);
    }
    CHECK(before == 1 && left == 0, "the stuck worker was ended with its kernel (%d left)", left);
    enigma_buffer_destroy(b); /* lost with the old worker */
    check_affine(dev, lib, 1024, "after a time limit");
    CHECK(workers(pids + 1, 7) == 1 && pids[1] != pids[0], "a fresh worker took over at the next call");

    /* cancelled from another thread, no time limit */
    REQUIRE(enigma_buffer_create(dev, 64, &b));
    OK(enigma_command_set_buffer(c, 0, b, 0));
    OK(enigma_command_set_timeout(c, 0));
    cancel_arg ca = {.cmd = c};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, cancel_soon, &ca) == 0 ? ENIGMA_OK : ENIGMA_ERROR_INTERNAL);
    st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1});
    double returned = seconds_now();
    pthread_join(t, NULL);
    CHECK(st == ENIGMA_ERROR_CANCELLED && strstr(enigma_last_error(), "kernel 'hang'"), "a cancel gave %s: %s",
          enigma_status_name(st), enigma_last_error());
    CHECK(returned - ca.at < 0.1, "the dispatch returned %.3f s after the cancel", returned - ca.at);
    enigma_buffer_destroy(b);
    check_affine(dev, lib, 1024, "after a cancel");
    enigma_command_destroy(c);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    check_no_children("after closing the device");
    return 0;
}

static int test_missing(void) {
    const char *nowhere = "/nonexistent/enigma-cuda-worker";
    setenv("ENIGMA_CUDA_WORKER", nowhere, 1);
    enigma_device *dev = NULL;
    REQUIRE(enigma_device_open("cuda", &dev));
    enigma_library *lib = build(dev);
    check_affine(dev, lib, 100, "before the fault");
    enigma_pipeline *p;
    enigma_command *c = command(lib, "fault_far", &p);
    enigma_buffer *b = NULL;
    REQUIRE(enigma_buffer_create(dev, 256, &b));
    OK(enigma_command_set_buffer(c, 0, b, 0));
    enigma_status st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1});
    const char *msg = enigma_last_error();
    CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "'fault_far'") && strstr(msg, nowhere) && strstr(msg, "cannot recover"),
          "a fault without a worker gave %s: %s", enigma_status_name(st), msg);
    enigma_buffer *later = NULL;
    st = enigma_buffer_create(dev, 64, &later);
    msg = enigma_last_error();
    fprintf(stderr, "note: the lost device: %s\n", msg);
    CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "device is lost") && strstr(msg, "'fault_far'") &&
              strstr(msg, "CUDA_ERROR_ILLEGAL_ADDRESS") && strstr(msg, nowhere),
          "a buffer on the lost device gave %s (want both reasons): %s", enigma_status_name(st), msg);
    if (later) enigma_buffer_destroy(later);
    enigma_library *again = NULL;
    st = enigma_library_create_from_source(dev, source, strlen(source), "again.metal", NULL, &again);
    CHECK(st == ENIGMA_ERROR_RUNTIME, "a build on the lost device gave %s: %s", enigma_status_name(st), enigma_last_error());
    enigma_library_destroy(again);
    enigma_buffer_destroy(b);
    enigma_command_destroy(c);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);

    setenv("ENIGMA_CUDA_ISOLATE", "1", 1);
    st = enigma_device_open("cuda", &dev);
    msg = enigma_last_error();
    CHECK(st == ENIGMA_ERROR_UNAVAILABLE && strstr(msg, "ENIGMA_CUDA_ISOLATE=1") && strstr(msg, nowhere),
          "ISOLATE=1 without a worker gave %s: %s", enigma_status_name(st), msg);
    if (st == ENIGMA_OK) enigma_device_close(dev);
    check_no_children("without a worker");
    return 0;
}

/* a worker whose driver cannot report parameter layouts: launches are refused, saying why,
 * and nothing is launched with a guessed layout */
static int test_no_param_info(void) {
    setenv("ENIGMA_CUDA_ISOLATE", "1", 1);
    setenv("FAKE_CUDA_NO_PARAM_INFO", "1", 1);
    enigma_device *dev = NULL;
    REQUIRE(enigma_device_open("cuda", &dev));
    enigma_library *lib = build(dev);
    enigma_pipeline *p;
    enigma_command *c = command(lib, "affine", &p);
    enigma_buffer *out = NULL;
    uint32_t k = 5;
    REQUIRE(enigma_buffer_create(dev, 256, &out));
    OK(enigma_command_set_buffer(c, 0, out, 0));
    OK(enigma_command_set_bytes(c, 1, &k, 4));
    enigma_status st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){64, 1, 1}, (enigma_size3){64, 1, 1});
    const char *msg = enigma_last_error();
    fprintf(stderr, "note: no parameter layout: %s\n", msg);
    CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "'affine'") && strstr(msg, "cuFuncGetParamInfo"),
          "a launch without a parameter layout gave %s: %s", enigma_status_name(st), msg);
    check_round_trip(dev, 3000, "without parameter layouts"); /* the device itself still works */
    enigma_buffer_destroy(out);
    enigma_command_destroy(c);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    check_no_children("after closing the device");
    return 0;
}

/* two devices share the worker: a fault on one replaces the worker, the other learns at its
 * next call that its context went with the old worker (refused, never sent to the new one),
 * and both then work on the same new worker: no reset of one ends the other's new context */
static int test_two_devices(void) {
    setenv("ENIGMA_CUDA_ISOLATE", "1", 1);
    enigma_device *a = NULL, *b = NULL;
    REQUIRE(enigma_device_open("cuda", &a));
    REQUIRE(enigma_device_open("cuda", &b));
    enigma_library *lib_a = build(a), *lib_b = build(b);
    pid_t pids[8];
    CHECK(workers(pids, 8) == 1, "two isolated devices share one worker");
    check_affine(a, lib_a, 100, "device a");
    check_affine(b, lib_b, 200, "device b");
    fault_and_recover(a, lib_a, "a fault on device a");
    int count = workers(pids, 8);
    pid_t second = pids[0];
    CHECK(count == 1, "one worker after the fault (%d)", count);

    enigma_buffer *x = NULL;
    enigma_status st = enigma_buffer_create(b, 64, &x);
    const char *msg = enigma_last_error();
    fprintf(stderr, "note: device b after a's fault: %s\n", msg);
    CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "replaced") && strstr(msg, "fresh worker process"),
          "device b's first call after a's fault gave %s: %s", enigma_status_name(st), msg);
    if (x) enigma_buffer_destroy(x);
    check_affine(b, lib_b, 300, "device b after a's fault");
    check_affine(a, lib_a, 400, "device a after b's recovery");
    check_round_trip(b, 50000, "device b after a's fault");
    check_round_trip(a, 50000, "device a after b's recovery");
    count = workers(pids, 8);
    CHECK(count == 1 && pids[0] == second, "still the same worker (%d workers; pid %d, want %d)", count, (int)pids[0],
          (int)second);
    enigma_library_destroy(lib_a);
    enigma_library_destroy(lib_b);
    enigma_device_close(a);
    CHECK(workers(pids, 8) == 1, "the worker stays while device b is open");
    enigma_device_close(b);
    check_no_children("after closing both devices");
    return 0;
}

/* threads moving bytes through their own buffers while kernels fault (in this process,
 * then in the worker): a call may fail with a runtime error that says what happened, but
 * one that succeeds moved exactly the right bytes, and the device works afterwards */
typedef struct mover {
    enigma_device *dev;
    uint64_t seed;
    int moved, refused, wrong; /* checked by the main thread (CHECK's count is not atomic) */
    char first_wrong[600];
} mover;

static void *move_bytes(void *arg) {
    mover *m = arg;
    uint64_t x = m->seed | 1;
    for (int round = 0; round < 150; round++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t bytes = 1 + (size_t)(x % 200000);
        unsigned char *data = malloc(bytes), *back = calloc(1, bytes);
        for (size_t i = 0; i < bytes; i++) data[i] = (unsigned char)(x >> (8 * (i % 8))) ^ (unsigned char)i;
        enigma_buffer *b = NULL;
        enigma_status st = enigma_buffer_create_with_data(m->dev, data, bytes, &b);
        if (st == ENIGMA_OK) st = enigma_buffer_read(b, 0, back, bytes);
        const char *msg = enigma_last_error();
        bool explained = st == ENIGMA_ERROR_RUNTIME && (strstr(msg, "fault") || strstr(msg, "lost") || strstr(msg, "reset"));
        if (st == ENIGMA_OK) m->moved++;
        else m->refused++;
        if ((st == ENIGMA_OK && memcmp(data, back, bytes) != 0) || (st != ENIGMA_OK && !explained)) {
            if (!m->wrong++)
                snprintf(m->first_wrong, sizeof m->first_wrong, "%zu bytes: %s: %s", bytes, enigma_status_name(st),
                         st == ENIGMA_OK ? "came back different" : msg);
        }
        if (b) enigma_buffer_destroy(b);
        free(data);
        free(back);
    }
    return NULL;
}

static int test_threads(void) {
    enigma_device *dev = NULL;
    REQUIRE(enigma_device_open("cuda", &dev));
    enigma_library *lib = build(dev);
    enum { THREADS = 4 };
    mover movers[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        movers[i] = (mover){.dev = dev, .seed = rnd()};
        pthread_create(&threads[i], NULL, move_bytes, &movers[i]);
    }
    for (int fault = 0; fault < 2; fault++) {
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
        enigma_pipeline *p;
        enigma_command *c = command(lib, "fault_far", &p);
        enigma_buffer *b = NULL;
        enigma_status st = enigma_buffer_create(dev, 256, &b);
        if (st == ENIGMA_OK) st = enigma_command_set_buffer(c, 0, b, 0);
        if (st == ENIGMA_OK)
            st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1});
        /* another thread may meet the fault first: then this dispatch may even succeed */
        CHECK(st == ENIGMA_OK || st == ENIGMA_ERROR_RUNTIME, "fault %d gave %s: %s", fault, enigma_status_name(st),
              enigma_last_error());
        if (b) enigma_buffer_destroy(b);
        enigma_command_destroy(c);
        enigma_pipeline_destroy(p);
    }
    int moved = 0, refused = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        moved += movers[i].moved;
        refused += movers[i].refused;
        CHECK(movers[i].wrong == 0, "thread %d: %d copies wrong or unexplained; the first: %s", i, movers[i].wrong,
              movers[i].first_wrong);
    }
    fprintf(stderr, "note: %d copies moved, %d refused around the faults\n", moved, refused);
    CHECK(moved > 0, "some copies went through");
    check_round_trip(dev, 300000, "after the threads");
    check_affine(dev, lib, 999, "after the threads");
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    check_no_children("after closing the device");
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_cuda_remote recover|isolate|missing|no-param-info|two-devices|threads|timeout\n");
        return 2;
    }
    const char *fake = getenv("ENIGMA_LIBCUDA");
    if (!fake || !*fake) {
        fprintf(stderr, "ENIGMA_LIBCUDA must name fake_libcuda.so (tests/cuda-remote/tests.cmake sets it)\n");
        return 2;
    }
    rnd_seed_from_clock();
    /* NVRTC is real: without it there is nothing to load into the fake driver */
    enigma_device *dev = NULL;
    enigma_status st = enigma_device_open("cuda", &dev);
    if (st == ENIGMA_ERROR_UNAVAILABLE && strstr(enigma_last_error(), "nvrtc")) {
        fprintf(stderr, "skipped: %s\n", enigma_last_error());
        return 77;
    }
    if (st == ENIGMA_OK) enigma_device_close(dev);
    int r = !strcmp(argv[1], "recover") ? test_recover()
            : !strcmp(argv[1], "isolate") ? test_isolate()
            : !strcmp(argv[1], "missing") ? test_missing()
            : !strcmp(argv[1], "no-param-info") ? test_no_param_info()
            : !strcmp(argv[1], "two-devices") ? test_two_devices()
            : !strcmp(argv[1], "threads") ? test_threads()
            : !strcmp(argv[1], "timeout") ? test_timeout()
            : 2;
    if (failures) fprintf(stderr, "%d check%s failed\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : r;
}
