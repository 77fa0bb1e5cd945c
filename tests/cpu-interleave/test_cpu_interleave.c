/* test_cpu_interleave.c — grid-stride loops whose SIMD groups run interleaved (emit_region.c,
 * emit_interleaved_loop: one step of every SIMD group in turn, the loop index kept out of
 * memory until a SIMD group stops) give the results of the plain per-SIMD-group order.
 *
 * The kernels put into the loop body what the phase must get right: divergent ifs, an inner
 * loop with a per-lane trip count, a SIMD function, a per-thread threadgroup slot, the index
 * read as a value, and the index's final value read after the loop. Dispatch shapes cover
 * partial SIMD groups (which stay out of the phase), SIMD groups that reach the end at
 * different steps, threads that never enter, and a signed index that starts negative.
 * The generated C is checked too, so a test cannot pass by the phase silently not being
 * there: loops that qualify have it, a loop with a break and checked mode do not.
 * References are computed here in double from fresh random inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enigma.h"
#include "../test_util.h"

static float rndf(void) { return (float)((double)(rnd() % 2000001) / 1000000.0 - 1.0); }

static const char *source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void mix(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                device uint *last [[buffer(2)]], constant uint &n [[buffer(3)]],\n"
    "                device float *scaled [[buffer(4)]],\n"
    "                uint gid [[thread_position_in_grid]], uint gs [[threads_per_grid]],\n"
    "                uint tid [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup float stage[1024];\n"
    "    float acc = 0.0f;\n"
    "    uint count = 0;\n"
    "    uint i = gid;\n"
    "    for (; i < n; i += gs) {\n"
    "        float v = in[i];\n"
    "        if (v > 0.5f) acc += v; else acc -= 0.25f * v;\n"       /* divergent arms */
    "        for (uint k = 0; k < (i & 3u); k++) acc += 1.0f;\n"     /* per-lane trip count */
    "        acc += simd_sum(v) * 0.001f;\n"                          /* every lane of the group */
    "        stage[tid] = v;\n"
    "        scaled[i] = stage[tid] * float(i % 7u);\n"              /* i as a value */
    "        count++;\n"
    "    }\n"
    "    out[gid] = acc + float(count) * 1000.0f;\n"
    "    last[gid] = i;\n"                                            /* the index after the loop */
    "}\n"
    "kernel void signed_start(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                         constant int &n [[buffer(2)]],\n"
    "                         uint gid [[thread_position_in_grid]], uint gs [[threads_per_grid]]) {\n"
    "    for (int i = int(gid) - 40; i < n; i += int(gs))\n"
    "        if (i >= 0) out[i] = in[i] * 3.0f - float(i);\n"
    "}\n"
    /* leaves through a break: must not be interleaved (a SIMD group's mask narrows) */
    "kernel void with_break(device const float *in [[buffer(0)]], device uint *out [[buffer(1)]],\n"
    "                       constant uint &n [[buffer(2)]],\n"
    "                       uint gid [[thread_position_in_grid]], uint gs [[threads_per_grid]]) {\n"
    "    uint count = 0;\n"
    "    for (uint i = gid; i < n; i += gs) {\n"
    "        if (in[i] > 0.95f) break;\n"
    "        count++;\n"
    "    }\n"
    "    out[gid] = count;\n"
    "}\n";

static enigma_pipeline *pipeline(enigma_library *lib, const char *name) {
    enigma_pipeline *p = NULL;
    OK(enigma_pipeline_create(lib, name, &p));
    return p;
}

/* the generated C of `lib`, kernel by kernel: does kernel `index`'s text hold the phase? */
static bool kernel_has_phase(const char *c, int index) {
    char from[64], to[64];
    snprintf(from, sizeof from, "void enk_kernel_%d(", index);
    snprintf(to, sizeof to, "void enk_kernel_%d(", index + 1);
    const char *start = strstr(c, from), *end = start ? strstr(start, to) : NULL;
    if (!start) return false;
    const char *hit = strstr(start, "SIMD groups interleaved");
    return hit && (!end || hit < end);
}

static void check_emitted(enigma_device *dev) {
    enigma_library *lib = NULL;
    OK(enigma_library_create_from_source(dev, source, strlen(source), "interleave.metal", NULL, &lib));
    char *c = NULL;
    OK(enigma_library_emit(lib, "c", &c));
    if (c) {
        CHECK(kernel_has_phase(c, 0), "kernel mix has no interleaved phase in its C");
        CHECK(kernel_has_phase(c, 1), "kernel signed_start has no interleaved phase in its C");
        CHECK(!kernel_has_phase(c, 2), "kernel with_break (it leaves the loop) was interleaved");
    }
    enigma_free(c);
    enigma_library_destroy(lib);

    enigma_compile_options checked = {.checked = true};
    OK(enigma_library_create_from_source(dev, source, strlen(source), "interleave.metal", &checked, &lib));
    c = NULL;
    OK(enigma_library_emit(lib, "c", &c));
    if (c) CHECK(strstr(c, "SIMD groups interleaved") == NULL, "checked mode's C has an interleaved phase");
    enigma_free(c);
    enigma_library_destroy(lib);
}

/* one [[buffer(i)]] of a dispatch: its bytes on the host, uploaded before and read back after */
typedef struct slot {
    void *host;
    size_t bytes;
} slot;

/* binds slots[i] to [[buffer(i)]], dispatches `groups` threadgroups of `tsize` threads and
 * reads every slot back into its host bytes */
static void dispatch_slots(enigma_device *dev, enigma_pipeline *p, slot *slots, int count, uint32_t groups,
                           uint32_t tsize) {
    enigma_buffer *b[8] = {0};
    enigma_command *cmd = NULL;
    OK(enigma_command_create(p, &cmd));
    for (int i = 0; i < count && cmd; i++) {
        OK(enigma_buffer_create_with_data(dev, slots[i].host, slots[i].bytes, &b[i]));
        OK(enigma_command_set_buffer(cmd, i, b[i], 0));
    }
    OK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1},
                               (enigma_size3){tsize, 1, 1}));
    for (int i = 0; i < count; i++) {
        OK(enigma_buffer_read(b[i], 0, slots[i].host, slots[i].bytes));
        enigma_buffer_destroy(b[i]);
    }
    enigma_command_destroy(cmd);
}

static void run_mix(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize, uint32_t n) {
    uint32_t threads = groups * tsize;
    float *in = malloc((size_t)n * 4 + 4), *out = calloc(threads, 4), *scaled = calloc((size_t)n + 1, 4);
    uint32_t *last = calloc(threads, 4);
    for (uint32_t i = 0; i < n; i++) in[i] = rndf();
    slot slots[] = {{in, (size_t)n * 4 + 4}, {out, (size_t)threads * 4}, {last, (size_t)threads * 4},
                    {&n, 4}, {scaled, (size_t)n * 4 + 4}};
    dispatch_slots(dev, p, slots, 5, groups, tsize);

    int bad = 0;
    for (uint32_t g = 0; g < threads && bad < 5; g++) {
        /* this thread's SIMD group: 32 threads of its threadgroup, the last one partial */
        uint32_t group = g / tsize, tid = g % tsize, first = group * tsize + tid / 32 * 32;
        uint32_t members = tsize - tid / 32 * 32 < 32 ? tsize - tid / 32 * 32 : 32;
        double acc = 0;
        uint32_t count = 0, i = g;
        for (; i < n; i += threads, count++) {
            double v = in[i], simd = 0;
            acc += v > 0.5 ? v : -0.25 * v;
            acc += i & 3u;
            /* simd_sum over the lanes still in the loop at this step */
            uint32_t step = (i - g) / threads;
            for (uint32_t m = first; m < first + members; m++)
                if (m + (uint64_t)step * threads < n) simd += in[m + step * threads];
            acc += simd * 0.001;
        }
        double ref = acc + count * 1000.0;
        if (fabs(out[g] - ref) > 2e-4 * (1.0 + fabs(ref))) {
            bad++;
            CHECK(0, "mix %ux%u n %u, thread %u: %.9g, expected %.9g", groups, tsize, n, g, out[g], ref);
        }
        if (last[g] != i) {
            bad++;
            CHECK(0, "mix %ux%u n %u, thread %u: i after the loop %u, expected %u", groups, tsize, n, g,
                  last[g], i);
        }
    }
    for (uint32_t i = 0; i < n && bad < 5; i++) {
        double ref = (double)in[i] * (double)(i % 7u);
        if (fabs(scaled[i] - ref) > 1e-6 * (1.0 + fabs(ref))) {
            bad++;
            CHECK(0, "mix %ux%u n %u, scaled[%u]: %.9g, expected %.9g", groups, tsize, n, i, scaled[i], ref);
        }
    }
    CHECK(bad == 0, "mix %ux%u n %u: wrong results", groups, tsize, n);
    free(in), free(out), free(last), free(scaled);
}

static void run_signed(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize, int32_t n) {
    float *in = malloc((size_t)n * 4), *out = calloc((size_t)n, 4);
    for (int32_t i = 0; i < n; i++) in[i] = rndf();
    slot slots[] = {{in, (size_t)n * 4}, {out, (size_t)n * 4}, {&n, 4}};
    dispatch_slots(dev, p, slots, 3, groups, tsize);
    /* thread g covers g - 40, g - 40 + G, ...: every i >= 0 is written once, as long as the
     * grid is larger than 40 (the indices below 0 belong to threads 0..39 only) */
    int bad = 0;
    for (int32_t i = 0; i < n && bad < 5; i++) {
        double ref = 3.0 * in[i] - i;
        if (fabs(out[i] - ref) > 1e-6 * (1.0 + fabs(ref))) {
            bad++;
            CHECK(0, "signed_start %ux%u n %d, out[%d]: %.9g, expected %.9g", groups, tsize, n, i, out[i], ref);
        }
    }
    free(in), free(out);
}

static void run_break(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize, uint32_t n) {
    uint32_t threads = groups * tsize;
    float *in = malloc((size_t)n * 4);
    uint32_t *out = calloc(threads, 4);
    for (uint32_t i = 0; i < n; i++) in[i] = (float)((double)(rnd() % 1000000) / 1000000.0);
    slot slots[] = {{in, (size_t)n * 4}, {out, (size_t)threads * 4}, {&n, 4}};
    dispatch_slots(dev, p, slots, 3, groups, tsize);
    int bad = 0;
    for (uint32_t g = 0; g < threads && bad < 5; g++) {
        uint32_t count = 0;
        for (uint32_t i = g; i < n && !(in[i] > 0.95f); i += threads) count++;
        if (out[g] != count) {
            bad++;
            CHECK(0, "with_break %ux%u n %u, thread %u: %u, expected %u", groups, tsize, n, g, out[g], count);
        }
    }
    free(in), free(out);
}

int main(void) {
    rnd_seed_from_clock();
    enigma_device *dev = NULL;
    OK(enigma_device_open("cpu", &dev));
    if (!dev) return 1;
    check_emitted(dev);
    enigma_library *lib = NULL;
    if (enigma_library_create_from_source(dev, source, strlen(source), "interleave.metal", NULL, &lib) != ENIGMA_OK) {
        fprintf(stderr, "%s\n", lib ? enigma_library_diagnostics_text(lib) : enigma_last_error());
        return 1;
    }
    enigma_pipeline *mix = pipeline(lib, "mix"), *sgn = pipeline(lib, "signed_start"),
                    *brk = pipeline(lib, "with_break");
    /* {threadgroups, threads per group, n}: whole SIMD groups, a partial last one (200 =
     * 6 x 32 + 8), one SIMD group alone (no phase), n not a multiple of the grid (groups
     * stop at different steps), n below the grid (some threads never enter), n of 0 */
    static const uint32_t shapes[][3] = {
        {2, 256, 100000}, {3, 200, 77777}, {1, 1024, 65536 + 5}, {4, 32, 5000},
        {2, 96, 150},     {5, 64, 33},     {2, 128, 0},          {1, 64, 64 * 37 + 31},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (mix) run_mix(dev, mix, shapes[s][0], shapes[s][1], shapes[s][2]);
        if (brk && shapes[s][2]) run_break(dev, brk, shapes[s][0], shapes[s][1], shapes[s][2]);
    }
    if (sgn) {
        run_signed(dev, sgn, 2, 256, 100003);
        run_signed(dev, sgn, 3, 96, 1000);
        run_signed(dev, sgn, 1, 64, 20);
    }
    enigma_pipeline_destroy(mix), enigma_pipeline_destroy(sgn), enigma_pipeline_destroy(brk);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
