/* test_check_rt.c — the checking runtime (src/cpu/check_rt.c) driven through its hooks
 * directly, as checked generated code calls them: one scenario per rule of the ordering
 * model and per kind, each asserting the exact reports (kind and line) and, for accesses,
 * the lanes let through. No compiler involved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/check_rt.h"
#include "runtime/runtime.h"

static int failures;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* a dispatch of `groups` threadgroups of `threads` threads over one device buffer of
 * `bytes` (binding 0) and a static threadgroup array of 64 floats */
typedef struct fixture {
    en_launch launch;
    en_check_sink *sink;
    cpu_buffer buffer;
    float data[256];
    float tg[64];
    void *buffers[EN_MAX_BINDINGS];
    void *tg_dynamic[EN_MAX_TG_BINDINGS];
    cpu_group g;
    cpu_check_dispatch *d;
    cpu_check_object objects[2];
} fixture;

static void fixture_init(fixture *f, uint32_t groups, uint32_t threads, size_t bytes, bool buffer_const) {
    memset(f, 0, sizeof *f);
    f->sink = en_check_sink_new(NULL);
    f->buffer.data = f->data;
    f->buffer.size = sizeof f->data;
    f->launch.groups[0] = groups;
    f->launch.groups[1] = f->launch.groups[2] = 1;
    f->launch.group_size[0] = threads;
    f->launch.group_size[1] = f->launch.group_size[2] = 1;
    f->launch.grid[0] = groups * threads;
    f->launch.grid[1] = f->launch.grid[2] = 1;
    f->launch.buffers[0] = (en_binding){.handle = &f->buffer, .offset = 0, .size = bytes};
    f->launch.check = f->sink;
    f->buffers[0] = f->data;
    f->g.buffers = f->buffers;
    f->g.tg_dynamic = f->tg_dynamic;
    f->g.tg_static = (char *)f->tg;
    for (int k = 0; k < 3; k++) {
        f->g.grid[k] = f->launch.grid[k];
        f->g.groups[k] = f->launch.groups[k];
        f->g.group_size[k] = f->launch.group_size[k];
        f->g.size[k] = f->launch.group_size[k];
    }
    f->objects[0] = (cpu_check_object){.kind = CPU_CHECK_OBJ_BUFFER, .is_const = buffer_const, .binding = 0,
                                       .name = "data"};
    f->objects[1] = (cpu_check_object){.kind = CPU_CHECK_OBJ_TG_STATIC, .offset = 0, .size = sizeof f->tg,
                                       .name = "tile"};
    f->d = cpu_check_dispatch_new(&f->launch, false);
}

static void group(fixture *f, uint32_t x) {
    f->g.position[0] = x;
    cpu_check_hooks.group_begin(f->d, &f->g, f->objects, 2);
}

static void fixture_free(fixture *f) {
    cpu_check_dispatch_free(f->d);
    en_check_sink_free(f->sink);
}

static cpu_check_site site(int line, uint16_t op, uint16_t space, int object) {
    return (cpu_check_site){.file = 0, .line = line, .col = 1, .op = op, .space = space, .object = object,
                            .size = 4, .what = object == 1 ? "tile" : "data"};
}

/* lane l of the gang accesses base[index(l)] */
static uint32_t access(fixture *f, const cpu_check_site *s, uint32_t sg, uint32_t mask, float *base,
                       int (*index)(int lane)) {
    uintptr_t addr[32];
    for (int l = 0; l < 32; l++) addr[l] = (uintptr_t)&base[index(l)];
    return cpu_check_hooks.access(f->d, s, sg, mask, addr, NULL);
}

static int lane_index(int l) { return l; }
static int lane_plus_32(int l) { return l + 32; }
static int lane_zero(int l) { (void)l; return 0; }
static int lane_half(int l) { return l / 2; }

/* the reports as "kind:line" in order of first sight */
static int count_reports(fixture *f, enigma_check_kind kind, int line) {
    int n = 0;
    for (int i = 0; i < en_check_sink_count(f->sink); i++) {
        enigma_check_report r;
        en_check_sink_get(f->sink, i, &r);
        if (r.kind == kind && r.line == line) n++;
    }
    return n;
}

/* the first report of `kind` at `line` into *r; false (r's message "") when there is none */
static bool report_at(fixture *f, enigma_check_kind kind, int line, enigma_check_report *r) {
    for (int i = 0; i < en_check_sink_count(f->sink); i++) {
        en_check_sink_get(f->sink, i, r);
        if (r->kind == kind && r->line == line) return true;
    }
    *r = (enigma_check_report){.message = ""};
    return false;
}

static void test_out_of_bounds(void) {
    fixture f;
    fixture_init(&f, 1, 64, 40 * sizeof(float), true); /* 40 floats bound */
    group(&f, 0);
    cpu_check_site load = site(10, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    uint32_t ok = access(&f, &load, 1, 0xffffffffu, f.data, lane_plus_32); /* elements 32..63 */
    EXPECT(ok == 0xffu, "lanes 0..7 (elements 32..39) in bounds, got %#x", ok);
    EXPECT(count_reports(&f, ENIGMA_CHECK_OUT_OF_BOUNDS, 10) == 1, "one out-of-bounds report");
    /* address lookup (no object known): an address inside the tile is fine, one far past
     * every object is out of bounds */
    cpu_check_site anywhere = site(11, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, -1);
    ok = access(&f, &anywhere, 0, 1u, f.tg, lane_index);
    EXPECT(ok == 1u && count_reports(&f, ENIGMA_CHECK_OUT_OF_BOUNDS, 11) == 0, "tile[0] is in bounds");
    /* formed through an integer: the compiler must not see an out-of-object pointer
     * (gcc -O2 -Warray-bounds), since making one is the point of the test */
    void *far = (void *)((uintptr_t)f.tg + 4096 * sizeof *f.tg);
    ok = access(&f, &anywhere, 0, 1u, far, lane_index);
    EXPECT(ok == 0 && count_reports(&f, ENIGMA_CHECK_OUT_OF_BOUNDS, 11) == 1, "far pointer refused");
    EXPECT(en_check_sink_count(f.sink) == 2, "no other report");
    /* the hook for consecutive lanes judges them as the array form does */
    cpu_check_site run_load = site(12, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    ok = cpu_check_hooks.access_run(f.d, &run_load, 1, 0xffffffffu, (uintptr_t)&f.data[32], NULL);
    EXPECT(ok == 0xffu, "consecutive lanes: elements 32..39 in bounds, got %#x", ok);
    ok = cpu_check_hooks.access_run(f.d, &run_load, 0, 0x0000ffffu, (uintptr_t)&f.data[8], NULL);
    EXPECT(ok == 0xffffu, "consecutive lanes 0..15 at elements 8..23, got %#x", ok);
    EXPECT(count_reports(&f, ENIGMA_CHECK_OUT_OF_BOUNDS, 12) == 1, "one report for the run past the end");
    fixture_free(&f);
}

static void test_threadgroup_ordering(void) {
    fixture f;
    fixture_init(&f, 2, 64, sizeof f.data, false);
    group(&f, 0);
    cpu_check_site store = site(20, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    cpu_check_site load = site(21, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    cpu_check_site after = site(23, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    cpu_check_site barrier = site(22, CPU_CHECK_BARRIER, 0, -1);
    /* SIMD group 0 writes tile[0..31]; its own lanes read tile[0] in a later operation
     * (warp-synchronous): ordered */
    access(&f, &store, 0, 0xffffffffu, f.tg, lane_index);
    access(&f, &load, 0, 0xffffffffu, f.tg, lane_zero);
    EXPECT(en_check_sink_count(f.sink) == 0, "warp-synchronous read is not a race");
    /* SIMD group 1 reads tile[0] in the same epoch: race */
    access(&f, &load, 1, 0xffffffffu, f.tg, lane_zero);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 21) == 1, "cross-SIMD-group read without barrier");
    /* after a barrier both groups read freely */
    uint32_t arrived[2] = {0xffffffffu, 0xffffffffu}, returned[2] = {0, 0};
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    access(&f, &after, 1, 0xffffffffu, f.tg, lane_index);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 23) == 0, "ordered by the barrier");
    EXPECT(count_reports(&f, ENIGMA_CHECK_BARRIER_DIVERGENCE, 22) == 0, "everyone arrived");
    /* uninitialized: tile[32..63] were never written */
    EXPECT(count_reports(&f, ENIGMA_CHECK_UNINITIALIZED_READ, 23) == 0, "tile[0..31] were written");
    access(&f, &after, 1, 0xffffffffu, f.tg, lane_plus_32);
    EXPECT(count_reports(&f, ENIGMA_CHECK_UNINITIALIZED_READ, 23) == 1, "tile[32..63] were not");
    /* a write after reads of two SIMD groups in one epoch: races with the other group */
    cpu_check_site store2 = site(24, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    access(&f, &store2, 0, 1u, f.tg + 5, lane_zero);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 24) == 1, "write after another group's read");
    /* two lanes of one SIMD group in one store to one place: race */
    cpu_check_site same = site(25, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    access(&f, &same, 0, 0x3u, f.tg, lane_half);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 25) == 1, "lanes 0 and 1 store to tile[0]");
    /* two lanes storing the same bytes to one place is benign; different bytes race */
    cpu_check_site flag = site(27, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    float ones[32], differ[32];
    uintptr_t at[32];
    for (int l = 0; l < 32; l++) {
        ones[l] = 1.0f;
        differ[l] = (float)l;
        at[l] = (uintptr_t)&f.tg[7];
    }
    cpu_check_hooks.access(f.d, &flag, 0, 0x3u, at, ones);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 27) == 0, "same value from two lanes");
    f.tg[7] = 1.0f; /* the store happens */
    cpu_check_hooks.access(f.d, &flag, 1, 0x1u, at, ones);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 27) == 0, "same value from another SIMD group");
    cpu_check_site flag2 = site(28, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    cpu_check_hooks.access(f.d, &flag2, 0, 0x6u, at, differ);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 28) == 1, "different values race");
    /* atomics never race with atomics */
    cpu_check_site rmw = site(26, CPU_CHECK_ATOMIC_RMW, IR_SPACE_THREADGROUP, 1);
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    access(&f, &rmw, 0, 0xffffffffu, f.tg, lane_zero);
    access(&f, &rmw, 1, 0xffffffffu, f.tg, lane_zero);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 26) == 0, "atomic with atomic");
    /* consecutive lanes (access_run): SIMD group 0 writes tile[32..63], reads them back in
     * a later operation (ordered), and SIMD group 1 reads them in the same epoch (a race) */
    cpu_check_site run_store = site(29, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    cpu_check_site run_own = site(30, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    cpu_check_site run_other = site(31, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    uint32_t ok = cpu_check_hooks.access_run(f.d, &run_store, 0, 0xffffffffu, (uintptr_t)&f.tg[32], differ);
    for (int l = 0; l < 32; l++) f.tg[32 + l] = differ[l]; /* the store happens */
    EXPECT(ok == 0xffffffffu && count_reports(&f, ENIGMA_CHECK_DATA_RACE, 29) == 0,
           "tile[32..63] in bounds, one cell a lane: got %#x", ok);
    cpu_check_hooks.access_run(f.d, &run_own, 0, 0xffffffffu, (uintptr_t)&f.tg[32], NULL);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 30) == 0, "its own lanes' writes");
    cpu_check_hooks.access_run(f.d, &run_other, 1, 0xffffffffu, (uintptr_t)&f.tg[32], NULL);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 31) == 1, "another SIMD group's writes, no barrier");
    /* a race on a cell whose store was its epoch's first access (kept short) names the
     * storing thread and its line: thread 37 reads tile[37], stored by thread 5 at line 32 */
    cpu_check_site run_store2 = site(32, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    cpu_check_site lone_read = site(33, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    cpu_check_hooks.access_run(f.d, &run_store2, 0, 0xffffffffu, (uintptr_t)&f.tg[32], differ);
    cpu_check_hooks.access_run(f.d, &lone_read, 1, 1u << 5, (uintptr_t)&f.tg[32], NULL);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 33) == 1, "the read of tile[37] races");
    enigma_check_report r;
    EXPECT(report_at(&f, ENIGMA_CHECK_DATA_RACE, 33, &r) &&
               strstr(r.message, "by thread (37,0,0) of threadgroup (0,0,0) [grid position (37,0,0)] conflicts with the "
                                 "store of it at line 32:1 by thread (5,0,0) of threadgroup (0,0,0)") != NULL,
           "names both threads and the store's line: %s", r.message);
    /* a new threadgroup starts with nothing written and no old records */
    group(&f, 1);
    access(&f, &load, 1, 1u, f.tg, lane_index);
    EXPECT(count_reports(&f, ENIGMA_CHECK_UNINITIALIZED_READ, 21) == 1, "stale writes of the last group");
    fixture_free(&f);
}

/* Many sites, each the first access of the epoch to its cell (kept short, the site by its
 * number on the state): a race on each cell names its own store's line */
static void test_many_sites(void) {
    fixture f;
    fixture_init(&f, 1, 64, sizeof f.data, false);
    group(&f, 0);
    cpu_check_site stores[64], loads[64]; /* a load site per cell too: the sink keeps one report a place */
    for (int i = 0; i < 64; i++) {
        stores[i] = site(100 + i, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
        loads[i] = site(300 + i, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    }
    for (int i = 0; i < 64; i++) access(&f, &stores[i], 0, 1u, f.tg + i, lane_zero);
    for (int i = 0; i < 64; i++) access(&f, &loads[i], 1, 1u, f.tg + i, lane_zero);
    int named = 0; /* the load of tile[i] at line 300 + i races with its store at line 100 + i */
    for (int i = 0; i < 64; i++) {
        enigma_check_report r;
        char want[64];
        snprintf(want, sizeof want, "element %d (byte offset %d)", i, 4 * i);
        bool element = report_at(&f, ENIGMA_CHECK_DATA_RACE, 300 + i, &r) && strstr(r.message, want);
        snprintf(want, sizeof want, "the store of it at line %d:1 ", 100 + i);
        named += element && strstr(r.message, want) != NULL;
    }
    EXPECT(named == 64, "each of the 64 races names its store's line: %d do", named);
    fixture_free(&f);
}

static void test_device_races(void) {
    fixture f;
    fixture_init(&f, 2, 32, sizeof f.data, false);
    cpu_check_site store = site(30, CPU_CHECK_STORE, IR_SPACE_DEVICE, 0);
    cpu_check_site load = site(31, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    cpu_check_site barrier = site(32, CPU_CHECK_BARRIER, 0, -1);
    uint32_t arrived[1] = {0xffffffffu}, returned[1] = {0};
    group(&f, 0);
    access(&f, &store, 0, 0xffffffffu, f.data, lane_index);
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 1);
    access(&f, &load, 0, 0xffffffffu, f.data, lane_index);
    EXPECT(en_check_sink_count(f.sink) == 0, "one threadgroup, ordered");
    group(&f, 1);
    /* the second threadgroup reads what the first wrote: no barrier orders them */
    access(&f, &load, 0, 1u, f.data, lane_index);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 31) == 1, "cross-threadgroup read after write");
    /* and writes what the first read */
    cpu_check_site store2 = site(33, CPU_CHECK_STORE, IR_SPACE_DEVICE, 0);
    access(&f, &store2, 0, 2u, f.data, lane_index);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 33) == 1, "cross-threadgroup write after read");
    /* half-words of one cell written by different threads do not conflict */
    cpu_check_site half = {.line = 34, .col = 1, .op = CPU_CHECK_STORE, .space = IR_SPACE_DEVICE, .object = 0,
                           .size = 2, .what = "data"};
    uintptr_t addr[32] = {0};
    addr[0] = (uintptr_t)((char *)(f.data + 100));
    addr[1] = (uintptr_t)((char *)(f.data + 100) + 2);
    cpu_check_hooks.access(f.d, &half, 0, 3u, addr, NULL);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 34) == 0, "disjoint bytes of one word");
    fixture_free(&f);

    /* a const buffer is only bounds-checked */
    fixture_init(&f, 2, 32, sizeof f.data, true);
    group(&f, 0);
    access(&f, &load, 0, 0xffffffffu, f.data, lane_index);
    group(&f, 1);
    access(&f, &load, 0, 0xffffffffu, f.data, lane_index);
    EXPECT(en_check_sink_count(f.sink) == 0, "reads never race");
    fixture_free(&f);
}

/* a release/acquire hand-off between threadgroups orders the first group's stores before
 * the second's loads, and the second group's acquisition is its own: a third group that
 * acquires nothing still races with the first */
static int lane_flag(int l) { (void)l; return 64; }

static void test_fence_hand_off_is_per_group(void) {
    fixture f;
    fixture_init(&f, 3, 32, sizeof f.data, false);
    cpu_check_site store = site(50, CPU_CHECK_STORE, IR_SPACE_DEVICE, 0);
    cpu_check_site release = site(51, CPU_CHECK_FENCE, 0, -1);
    cpu_check_site publish = site(52, CPU_CHECK_ATOMIC_STORE, IR_SPACE_DEVICE, 0);
    cpu_check_site observe = site(53, CPU_CHECK_ATOMIC_LOAD, IR_SPACE_DEVICE, 0);
    cpu_check_site acquire = site(54, CPU_CHECK_FENCE, 0, -1);
    cpu_check_site acquired_load = site(55, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    cpu_check_site plain_load = site(56, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    group(&f, 0); /* stores data[0..31], then lane 0 releases and sets the flag data[64] */
    access(&f, &store, 0, 0xffffffffu, f.data, lane_index);
    cpu_check_hooks.fence(f.d, &release, 0, 1u, IR_ORDER_RELEASE, IR_SCOPE_DEVICE);
    access(&f, &publish, 0, 1u, f.data, lane_flag);
    group(&f, 1); /* lane 0 reads the flag and acquires: its group may read data[0..31] */
    access(&f, &observe, 0, 1u, f.data, lane_flag);
    cpu_check_hooks.fence(f.d, &acquire, 0, 1u, IR_ORDER_ACQUIRE, IR_SCOPE_DEVICE);
    access(&f, &acquired_load, 0, 0xffffffffu, f.data, lane_index);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 55) == 0, "released, observed and acquired: ordered");
    group(&f, 2); /* reads data[0..31] with no hand-off of its own */
    access(&f, &plain_load, 0, 0xffffffffu, f.data, lane_index);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 56) == 1, "group 1's acquisition is not group 2's");
    EXPECT(en_check_sink_count(f.sink) == 1, "no other report");
    fixture_free(&f);
}

/* a release sequence ends at a store outside it: the reader of the flag acquires only the
 * releases made since (group 0's is gone after group 1's plain store; group 2's counts) */
static int lane_plus_64(int l) { return l + 64; }

static void test_release_sequence_ends_at_a_plain_store(void) {
    fixture f;
    fixture_init(&f, 4, 32, sizeof f.data, false);
    cpu_check_site store0 = site(60, CPU_CHECK_STORE, IR_SPACE_DEVICE, 0);
    cpu_check_site store2 = site(61, CPU_CHECK_STORE, IR_SPACE_DEVICE, 0);
    cpu_check_site release = site(62, CPU_CHECK_FENCE, 0, -1);
    cpu_check_site publish = site(63, CPU_CHECK_ATOMIC_RMW, IR_SPACE_DEVICE, 0);
    cpu_check_site overwrite = site(64, CPU_CHECK_ATOMIC_STORE, IR_SPACE_DEVICE, 0);
    cpu_check_site observe = site(65, CPU_CHECK_ATOMIC_LOAD, IR_SPACE_DEVICE, 0);
    cpu_check_site acquire = site(66, CPU_CHECK_FENCE, 0, -1);
    cpu_check_site read0 = site(67, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    cpu_check_site read2 = site(68, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    group(&f, 0); /* data[0..31], released through the flag data[64] */
    access(&f, &store0, 0, 0xffffffffu, f.data, lane_index);
    cpu_check_hooks.fence(f.d, &release, 0, 1u, IR_ORDER_RELEASE, IR_SCOPE_DEVICE);
    access(&f, &publish, 0, 1u, f.data, lane_flag);
    group(&f, 1); /* overwrites the flag with no release of its own */
    access(&f, &overwrite, 0, 1u, f.data, lane_flag);
    group(&f, 2); /* data[64..95]... of lanes 1..31 (lane 0's is the flag), released through it */
    access(&f, &store2, 0, 0xfffffffeu, f.data, lane_plus_64);
    cpu_check_hooks.fence(f.d, &release, 0, 1u, IR_ORDER_RELEASE, IR_SCOPE_DEVICE);
    access(&f, &publish, 0, 1u, f.data, lane_flag);
    group(&f, 3);
    access(&f, &observe, 0, 1u, f.data, lane_flag);
    cpu_check_hooks.fence(f.d, &acquire, 0, 1u, IR_ORDER_ACQUIRE, IR_SCOPE_DEVICE);
    access(&f, &read2, 0, 0xfffffffeu, f.data, lane_plus_64);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 68) == 0, "group 2's release is in the flag's value");
    access(&f, &read0, 0, 0xffffffffu, f.data, lane_index);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 67) == 1, "group 0's release ended at group 1's store");
    EXPECT(en_check_sink_count(f.sink) == 1, "no other report");
    fixture_free(&f);
}

static void test_barriers_lanes_division(void) {
    fixture f;
    fixture_init(&f, 1, 48, sizeof f.data, false); /* SIMD groups of 32 and 16 lanes */
    group(&f, 0);
    cpu_check_site barrier = site(40, CPU_CHECK_BARRIER, 0, -1);
    uint32_t arrived[2] = {0xffffffffu, 0xffffu}, returned[2] = {0, 0};
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    EXPECT(en_check_sink_count(f.sink) == 0, "all 48 arrive");
    /* lanes 32..39 returned, 40..47 skip the barrier: divergence */
    cpu_check_site b2 = site(41, CPU_CHECK_BARRIER, 0, -1);
    uint32_t arrived2[2] = {0xffffffffu, 0}, returned2[2] = {0, 0xffu};
    cpu_check_hooks.barrier(f.d, &b2, arrived2, returned2, 2);
    EXPECT(count_reports(&f, ENIGMA_CHECK_BARRIER_DIVERGENCE, 41) == 1, "lanes 40..47 skip it");
    /* only returned threads missing: fine */
    cpu_check_site b3 = site(42, CPU_CHECK_BARRIER, 0, -1);
    uint32_t returned3[2] = {0, 0xffffu};
    cpu_check_hooks.barrier(f.d, &b3, arrived2, returned3, 2);
    EXPECT(count_reports(&f, ENIGMA_CHECK_BARRIER_DIVERGENCE, 42) == 0, "returned threads are exempt");
    /* a barrier no thread reaches is not executed */
    cpu_check_site b4 = site(43, CPU_CHECK_BARRIER, 0, -1);
    uint32_t none[2] = {0, 0};
    cpu_check_hooks.barrier(f.d, &b4, none, returned, 2);
    EXPECT(count_reports(&f, ENIGMA_CHECK_BARRIER_DIVERGENCE, 43) == 0, "nobody there");
    cpu_check_site sb = site(44, CPU_CHECK_SIMD_BARRIER, 0, -1);
    cpu_check_hooks.simd_barrier(f.d, &sb, 1, 0xffu, 0);
    EXPECT(count_reports(&f, ENIGMA_CHECK_BARRIER_DIVERGENCE, 44) == 1, "lanes 8..15 of SIMD group 1 skip it");
    cpu_check_hooks.simd_barrier(f.d, &sb, 1, 0xffu, 0xff00u);
    EXPECT(count_reports(&f, ENIGMA_CHECK_BARRIER_DIVERGENCE, 44) == 1, "still one report: the rest returned");
    cpu_check_site lane = site(45, CPU_CHECK_SHUFFLE, 0, -1);
    cpu_check_hooks.lane(f.d, &lane, 0, 3, 19, CPU_CHECK_LANE_INACTIVE);
    cpu_check_site div = site(46, CPU_CHECK_DIV, 0, -1);
    cpu_check_hooks.div_zero(f.d, &div, 1, 2);
    EXPECT(count_reports(&f, ENIGMA_CHECK_INACTIVE_LANE, 45) == 1, "inactive lane");
    EXPECT(count_reports(&f, ENIGMA_CHECK_DIVISION_BY_ZERO, 46) == 1, "division by zero");
    enigma_check_report r;
    en_check_sink_get(f.sink, en_check_sink_count(f.sink) - 1, &r);
    EXPECT(strstr(r.message, "thread (34,0,0) of threadgroup (0,0,0)") != NULL, "names the thread: %s", r.message);
    /* an index into a thread array: the value as signed or unsigned, the length, the thread */
    cpu_check_site idx = site(47, CPU_CHECK_STORE, IR_SPACE_THREAD, -1);
    idx.what = "array 'a'";
    cpu_check_hooks.index(f.d, &idx, 1, 5, (uint64_t)-1, 1, 4);
    EXPECT(count_reports(&f, ENIGMA_CHECK_OUT_OF_BOUNDS, 47) == 1, "thread array index");
    en_check_sink_get(f.sink, en_check_sink_count(f.sink) - 1, &r);
    EXPECT(strstr(r.message, "thread array 'a' index -1, but it has 4 elements (0..3)") != NULL &&
               strstr(r.message, "thread (37,0,0) of threadgroup (0,0,0)") != NULL &&
               strstr(r.message, "the store was suppressed") != NULL,
           "index report: %s", r.message);
    cpu_check_site uidx = site(48, CPU_CHECK_LOAD, IR_SPACE_THREAD, -1);
    uidx.what = "vector 'v'";
    cpu_check_hooks.index(f.d, &uidx, 0, 0, UINT64_MAX, 0, 4);
    en_check_sink_get(f.sink, en_check_sink_count(f.sink) - 1, &r);
    EXPECT(strstr(r.message, "thread vector 'v' index 18446744073709551615") != NULL &&
               strstr(r.message, "the load was given zero") != NULL,
           "unsigned index report: %s", r.message);
    fixture_free(&f);
}


/* wide mode's hook: flags per thread, the span in one pass or SIMD group by SIMD group, with
 * the same reports as the per-SIMD-group hooks */
static void test_access_span(void) {
    fixture f;
    fixture_init(&f, 1, 64, 40 * sizeof(float), true); /* 40 floats of data bound */
    group(&f, 0);
    uintptr_t addr[64];
    uint8_t ok[64], set[64];
    /* device loads of elements 0..63 by threads 0..63: 0..39 in bounds */
    cpu_check_site load = site(30, CPU_CHECK_LOAD, IR_SPACE_DEVICE, 0);
    for (int t = 0; t < 64; t++) addr[t] = (uintptr_t)&f.data[t];
    memset(ok, 7, sizeof ok);
    int all = cpu_check_hooks.access_span(f.d, &load, 0, 64, NULL, addr, 1, NULL, ok);
    int bad = 0;
    for (int t = 0; t < 64; t++) bad += ok[t] != (t < 40);
    EXPECT(!all && bad == 0, "elements 0..39 allowed, 40..63 refused (%d flags wrong)", bad);
    EXPECT(count_reports(&f, ENIGMA_CHECK_OUT_OF_BOUNDS, 30) == 1, "one out-of-bounds report");
    /* the first 40 in one pass: all allowed */
    all = cpu_check_hooks.access_span(f.d, &load, 0, 40, NULL, addr, 1, NULL, ok);
    EXPECT(all == 1, "a span in bounds is allowed");
    /* threadgroup memory: threads 0..63 store tile[t] (one pass), after the barrier threads
     * 0..31 read tile[t + 32] and threads 32..63 store tile[t - 32]: no race (other cells) */
    cpu_check_site store = site(31, CPU_CHECK_STORE, IR_SPACE_THREADGROUP, 1);
    cpu_check_site read = site(32, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    float values[64] = {0};
    for (int t = 0; t < 64; t++) addr[t] = (uintptr_t)&f.tg[t];
    all = cpu_check_hooks.access_span(f.d, &store, 0, 64, NULL, addr, 1, values, ok);
    EXPECT(all == 1, "tile[0..63] stored");
    uint32_t arrived[2] = {0xffffffffu, 0xffffffffu}, returned[2] = {0, 0};
    cpu_check_site barrier = site(33, CPU_CHECK_BARRIER, 0, -1);
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    for (int t = 0; t < 32; t++) addr[t] = (uintptr_t)&f.tg[t + 32];
    all = cpu_check_hooks.access_span(f.d, &read, 0, 32, NULL, addr, 1, NULL, ok);
    EXPECT(all == 1 && en_check_sink_count(f.sink) == 1, "tile[32..63] read after the barrier");
    /* threads 32..63 of the second SIMD group store tile[0..31], which nobody read: fine;
     * then threads 0..31 read tile[0..31] as the other SIMD group's store left it: a race */
    for (int t = 32; t < 64; t++) addr[t] = (uintptr_t)&f.tg[t - 32];
    all = cpu_check_hooks.access_span(f.d, &store, 32, 64, NULL, addr, 1, values, ok);
    EXPECT(all == 1 && en_check_sink_count(f.sink) == 1, "tile[0..31] stored by the second SIMD group");
    for (int t = 0; t < 32; t++) addr[t] = (uintptr_t)&f.tg[t];
    cpu_check_hooks.access_span(f.d, &read, 0, 32, NULL, addr, 1, NULL, ok);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 32) == 1, "the read races with the other SIMD group's store");
    /* the same SIMD group's earlier store, a different operation: ordered (warp-synchronous);
     * threads 0..7 only (a set), at scattered addresses (the SIMD-group path) */
    cpu_check_hooks.barrier(f.d, &barrier, arrived, returned, 2);
    for (int t = 0; t < 64; t++) set[t] = t < 8;
    for (int t = 0; t < 32; t++) addr[t] = (uintptr_t)&f.tg[(t * 5) % 32];
    cpu_check_hooks.access_span(f.d, &store, 0, 32, set, addr, 0, values, ok);
    cpu_check_hooks.access_span(f.d, &read, 0, 32, set, addr, 0, NULL, ok);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 32) == 1, "a SIMD group reading its own stores does not race");
    bad = 0;
    for (int t = 0; t < 8; t++) bad += ok[t] != 1;
    EXPECT(bad == 0, "the set's threads are allowed");
    /* those stores went to tile[0, 5, 10, ... 30, 3]: thread 32 reading tile[10] races, and
     * reading tile[7] (where a run from tile[0] would have put thread 7's) does not */
    cpu_check_site other = site(34, CPU_CHECK_LOAD, IR_SPACE_THREADGROUP, 1);
    addr[32] = (uintptr_t)&f.tg[7];
    cpu_check_hooks.access_span(f.d, &other, 32, 33, NULL, addr, 1, NULL, ok);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 34) == 0, "tile[7] was not stored");
    addr[32] = (uintptr_t)&f.tg[10];
    cpu_check_hooks.access_span(f.d, &other, 32, 33, NULL, addr, 1, NULL, ok);
    EXPECT(count_reports(&f, ENIGMA_CHECK_DATA_RACE, 34) == 1, "tile[10], thread 2's store, races");
    fixture_free(&f);
}

int main(void) {
    test_out_of_bounds();
    test_threadgroup_ordering();
    test_many_sites();
    test_device_races();
    test_fence_hand_off_is_per_group();
    test_release_sequence_ends_at_a_plain_store();
    test_barriers_lanes_division();
    test_access_span();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("check_rt: all scenarios passed\n");
    return 0;
}
