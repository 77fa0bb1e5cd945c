/* test_cpu_defer.c — relaxed integer atomic adds that each worker sums (src/cpu/emit_defer.c).
 *
 * A counter that the kernel only adds to (or subtracts from), discarding the old value, is
 * summed per worker and added once at the end of the worker's share: the counters end as an
 * add per threadgroup (or per thread) would leave them, from a nonzero start, dispatch after
 * dispatch (each worker's sums start at zero, after a kernel that filled its context),
 * with more workers than cores. A counter whose
 * old value is used (tickets) or that is also read is added where it stands: those results
 * show it (a permutation of tickets; every read sees at least its own add), and the
 * generated C names the sums only where they apply, never in checked mode. Inputs are fresh
 * random integers; the references are sums in 64 bits, wrapped. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_util.h"

static const char source[] =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void sums(device const int *in [[buffer(0)]], device atomic_int *total [[buffer(1)]],\n"
    "                 device atomic_uint *count [[buffer(2)]], threadgroup int *part [[threadgroup(0)]],\n"
    "                 uint gid [[thread_position_in_grid]], uint lid [[thread_position_in_threadgroup]],\n"
    "                 uint n [[threads_per_threadgroup]]) {\n"
    "    part[lid] = in[gid];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (uint s = n / 2; s > 0; s /= 2) {\n"
    "        if (lid < s) part[lid] += part[lid + s];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    if (lid == 0) {\n"
    "        atomic_fetch_add_explicit(total, part[0], memory_order_relaxed);\n"
    "        atomic_fetch_sub_explicit(count, 1u, memory_order_relaxed);\n"
    "    }\n"
    "}\n"
    "kernel void each_thread(device const int *in [[buffer(0)]], device atomic_int *total [[buffer(1)]],\n"
    "                        uint gid [[thread_position_in_grid]]) {\n"
    "    if (in[gid] & 1) atomic_fetch_sub_explicit(total, -in[gid], memory_order_relaxed);\n"
    "    else atomic_fetch_add_explicit(total, in[gid], memory_order_relaxed);\n"
    "}\n"
    "kernel void tickets(device atomic_uint *next [[buffer(0)]], device uint *out [[buffer(1)]],\n"
    "                    uint gid [[thread_position_in_grid]]) {\n"
    "    out[gid] = atomic_fetch_add_explicit(next, 1u, memory_order_relaxed);\n"
    "}\n"
    "kernel void scribble(device int *out [[buffer(0)]], threadgroup int *part [[threadgroup(0)]],\n"
    "                     uint3 pos [[thread_position_in_grid]], uint3 grid [[threads_per_grid]],\n"
    "                     uint lid [[thread_index_in_threadgroup]]) {\n"
    "    uint gid = pos.y * grid.x + pos.x;\n"
    "    int a = out[gid] | 1, b = out[gid] * 13 + 5, c = out[gid] * 3 + 11, d = out[gid] * 17 + 2;\n"
    "    part[lid] = a;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (uint s = 512; s > 0; s /= 2) {\n"
    "        if (lid < s) part[lid] += part[lid + s];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    out[gid] = part[0] + a + b + c + d;\n"
    "}\n"
    "kernel void adds_and_reads(device atomic_int *total [[buffer(0)]], device int *seen [[buffer(1)]],\n"
    "                           uint gid [[thread_position_in_grid]]) {\n"
    "    atomic_fetch_add_explicit(total, 1, memory_order_relaxed);\n"
    "    seen[gid] = atomic_load_explicit(total, memory_order_relaxed);\n"
    "}\n";

enum { GROUPS = 3000, THREADS = 64, N = GROUPS * THREADS };

static enigma_device *dev;

typedef struct kernel_command {
    enigma_pipeline *pipeline;
    enigma_command *cmd;
} kernel_command;

static kernel_command command(enigma_library *lib, const char *kernel) {
    kernel_command k = {0};
    REQUIRE(enigma_pipeline_create(lib, kernel, &k.pipeline));
    REQUIRE(enigma_command_create(k.pipeline, &k.cmd));
    return k;
}

static void command_done(kernel_command k) {
    enigma_command_destroy(k.cmd);
    enigma_pipeline_destroy(k.pipeline);
}

static enigma_buffer *buffer_of(const void *data, size_t bytes) {
    enigma_buffer *b = NULL;
    REQUIRE(enigma_buffer_create_with_data(dev, data, bytes, &b));
    return b;
}

static int32_t read_i32(enigma_buffer *b) {
    int32_t v = 0;
    OK(enigma_buffer_read(b, 0, &v, sizeof v));
    return v;
}

/* scribble: fills each worker's context with values that live across a barrier (nonzero
 * where the next kernel keeps its sums, which must then start from zero) */
static void scribble(enigma_library *lib) {
    static int32_t out[N];
    for (int i = 0; i < N; i++) out[i] = (int32_t)(rnd() % 1000) * 2 + 1; /* odd: c is never 0 */
    enigma_buffer *o = buffer_of(out, sizeof out);
    kernel_command k = command(lib, "scribble");
    OK(enigma_command_set_buffer(k.cmd, 0, o, 0));
    OK(enigma_command_set_threadgroup_memory(k.cmd, 0, 1024 * sizeof(int32_t)));
    /* 32 x 32 groups: the per-SIMD-group code, whose per-thread arrays start the context */
    OK(enigma_command_dispatch(k.cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){N / 1024, 1, 1},
                               (enigma_size3){32, 32, 1})); /* a grid of N / 32 x 32 threads */
    command_done(k);
    enigma_buffer_destroy(o);
}

/* fills v[N] with fresh random integers in [-span, span]; their sum */
/* b0 and b1 bound as buffers 0 and 1, then N threads in groups of THREADS */
static void dispatch_threads(kernel_command k, enigma_buffer *b0, enigma_buffer *b1) {
    OK(enigma_command_set_buffer(k.cmd, 0, b0, 0));
    OK(enigma_command_set_buffer(k.cmd, 1, b1, 0));
    OK(enigma_command_dispatch(k.cmd, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, 1, 1}, (enigma_size3){THREADS, 1, 1}));
}

static int64_t random_ints(int32_t *v, int span) {
    int64_t sum = 0;
    for (int i = 0; i < N; i++) sum += v[i] = (int32_t)(rnd() % (uint64_t)(2 * span + 1)) - span;
    return sum;
}

/* sums: three dispatches in a row onto counters that start where the test puts them */
static void check_sums(enigma_library *lib, const char *mode) {
    static int32_t in[N];
    int64_t sum = random_ints(in, 1000000);
    int32_t total0 = (int32_t)(rnd() % 100000), count0 = 3 * GROUPS + (int32_t)(rnd() % 100);
    enigma_buffer *a = buffer_of(in, sizeof in), *total = buffer_of(&total0, 4), *count = buffer_of(&count0, 4);
    kernel_command k = command(lib, "sums");
    OK(enigma_command_set_buffer(k.cmd, 0, a, 0));
    OK(enigma_command_set_buffer(k.cmd, 1, total, 0));
    OK(enigma_command_set_buffer(k.cmd, 2, count, 0));
    OK(enigma_command_set_threadgroup_memory(k.cmd, 0, THREADS * sizeof(int32_t)));
    for (int d = 1; d <= 3; d++) {
        scribble(lib);
        OK(enigma_command_dispatch(k.cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){GROUPS, 1, 1},
                                   (enigma_size3){THREADS, 1, 1}));
        int32_t want_total = (int32_t)(uint32_t)((uint64_t)(int64_t)total0 + (uint64_t)(d * sum));
        CHECK(read_i32(total) == want_total, "%s: sums, dispatch %d: total %d, expected %d", mode, d, read_i32(total),
              want_total);
        CHECK(read_i32(count) == count0 - d * GROUPS, "%s: sums, dispatch %d: count %d, expected %d", mode, d,
              read_i32(count), count0 - d * GROUPS);
    }
    command_done(k);
    enigma_buffer_destroy(a);
    enigma_buffer_destroy(total);
    enigma_buffer_destroy(count);
}

/* each_thread: every thread adds (odd values as a subtraction of their negation) */
static void check_each_thread(enigma_library *lib, const char *mode) {
    static int32_t in[N];
    int64_t sum = random_ints(in, 1000);
    int32_t total0 = -(int32_t)(rnd() % 100000);
    enigma_buffer *a = buffer_of(in, sizeof in), *total = buffer_of(&total0, 4);
    kernel_command k = command(lib, "each_thread");
    dispatch_threads(k, a, total);
    CHECK(read_i32(total) == (int32_t)(total0 + sum), "%s: each_thread: total %d, expected %lld", mode,
          read_i32(total), (long long)(total0 + sum));
    command_done(k);
    enigma_buffer_destroy(a);
    enigma_buffer_destroy(total);
}

/* tickets: the old values are used, so every thread's add stands alone */
static void check_tickets(enigma_library *lib, const char *mode) {
    static uint32_t out[N];
    static bool seen[N];
    uint32_t start = (uint32_t)(rnd() % 1000);
    enigma_buffer *next = buffer_of(&start, 4), *o = buffer_of(out, sizeof out);
    kernel_command k = command(lib, "tickets");
    dispatch_threads(k, next, o);
    OK(enigma_buffer_read(o, 0, out, sizeof out));
    memset(seen, 0, sizeof seen);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t t = out[i] - start;
        if (t >= N || seen[t]) bad++;
        else seen[t] = true;
    }
    CHECK(bad == 0, "%s: tickets: %d of %d are not a permutation of %u..%u", mode, bad, N, start, start + N - 1);
    CHECK((uint32_t)read_i32(next) == start + N, "%s: tickets: next %u, expected %u", mode, (uint32_t)read_i32(next),
          start + N);
    command_done(k);
    enigma_buffer_destroy(next);
    enigma_buffer_destroy(o);
}

/* adds_and_reads: the counter is read, so its adds stand alone: every read sees its own */
static void check_adds_and_reads(enigma_library *lib, const char *mode) {
    static int32_t seen[N];
    int32_t zero = 0;
    enigma_buffer *total = buffer_of(&zero, 4), *s = buffer_of(seen, sizeof seen);
    kernel_command k = command(lib, "adds_and_reads");
    dispatch_threads(k, total, s);
    OK(enigma_buffer_read(s, 0, seen, sizeof seen));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += seen[i] < 1 || seen[i] > N;
    CHECK(bad == 0, "%s: adds_and_reads: %d reads outside 1..%d", mode, bad, N);
    CHECK(read_i32(total) == N, "%s: adds_and_reads: total %d, expected %d", mode, read_i32(total), N);
    command_done(k);
    enigma_buffer_destroy(total);
    enigma_buffer_destroy(s);
}

/* the generated C of each kernel sums where emit_defer.c says, and only there */
static void check_emitted(enigma_library *lib, bool checked) {
    static const struct { const char *kernel; bool sums; } want[] = {
        {"sums", true}, {"each_thread", true}, {"tickets", false}, {"adds_and_reads", false}, {"scribble", false}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *c = NULL;
        OK(enigma_library_emit_kernel(lib, "c", want[i].kernel, &c));
        bool sums = c && strstr(c, "_deferred(const enk_group *g, int flush)") && strstr(c, "summed for the worker");
        bool expected = want[i].sums && !checked;
        CHECK(sums == expected, "%s%s: the generated C %s the worker's sums", want[i].kernel, checked ? " (checked)" : "",
              sums ? "has" : "lacks");
        if (c && !strcmp(want[i].kernel, "sums") && expected)
            CHECK(strstr(c, "_deferred_0") && strstr(c, "_deferred_1"), "sums: one sum a counter");
        free(c);
    }
}

int main(void) {
    rnd_seed_from_clock();
    setenv("ENIGMA_NUM_THREADS", "4", 1); /* more workers than this machine's cores: each sums its own */
    REQUIRE(enigma_device_open("cpu", &dev));
    for (int checked = 0; checked < 2; checked++) {
        const char *mode = checked ? "checked" : "unchecked";
        enigma_compile_options opts = {.checked = checked};
        enigma_library *lib = NULL;
        REQUIRE(enigma_library_create_from_source(dev, source, strlen(source), "defer.metal", &opts, &lib));
        check_emitted(lib, checked);
        check_sums(lib, mode);
        check_each_thread(lib, mode);
        check_tickets(lib, mode);
        check_adds_and_reads(lib, mode);
        enigma_library_destroy(lib);
    }
    enigma_device_close(dev);
    if (failures) fprintf(stderr, "cpu defer: %d check(s) failed\n", failures);
    else printf("cpu defer: ok\n");
    return failures ? 1 : 0;
}
