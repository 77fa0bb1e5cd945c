/* test_cpu_seeds.c — the seed kernels (examples/seed003_reduce.metal,
 * examples/seed004_two_stage_reduction.metal) through the public API on the cpu device:
 * compiled from their .metal files by the front end, run, and checked against references
 * computed here from fresh random inputs. Skips (77) while the front end cannot compile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enigma.h"
#include "../test_util.h"

static enigma_pipeline *load(enigma_device *dev, const char *file, const char *kernel) {
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", ENIGMA_TEST_SOURCE_DIR, file);
    enigma_library *lib = NULL;
    enigma_status st = enigma_library_create_from_file(dev, path, NULL, &lib);
    if (st != ENIGMA_OK) {
        fprintf(stderr, "%s: %s\n%s\n", path, enigma_last_error(),
                lib ? enigma_library_diagnostics_text(lib) : "");
        if (lib) enigma_library_destroy(lib);
        exit(st == ENIGMA_ERROR_COMPILE ? 77 : 1);
    }
    enigma_pipeline *p = NULL;
    OK(enigma_pipeline_create(lib, kernel, &p));
    enigma_library_destroy(lib); /* the pipeline keeps what it needs */
    return p;
}

/* seed 003: tree reduction in threadgroup memory with a barrier in the loop */
static void seed003(enigma_device *dev) {
    enigma_pipeline *p = load(dev, "seed003_reduce.metal", "reduce");
    if (!p) return;
    const uint32_t groups = 41, tg = 256, n = groups * tg;
    int32_t *in = malloc(n * 4);
    int64_t ref = 0;
    for (uint32_t i = 0; i < n; i++) in[i] = (int32_t)(rnd() % 20001) - 10000, ref += in[i];
    enigma_buffer *bin, *bout;
    int32_t zero = 0, got = 0;
    OK(enigma_buffer_create_with_data(dev, in, n * 4, &bin));
    OK(enigma_buffer_create_with_data(dev, &zero, 4, &bout));
    enigma_command *cmd;
    OK(enigma_command_create(p, &cmd));
    OK(enigma_command_set_buffer(cmd, 0, bin, 0));
    OK(enigma_command_set_buffer(cmd, 1, bout, 0));
    OK(enigma_command_set_threadgroup_memory(cmd, 0, tg * 4));
    OK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1},
                               (enigma_size3){tg, 1, 1}));
    OK(enigma_buffer_read(bout, 0, &got, 4));
    CHECK(got == (int32_t)ref, "seed003 reduce: %d, expected %lld", got, (long long)ref);
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(bin);
    enigma_buffer_destroy(bout);
    enigma_pipeline_destroy(p);
    free(in);
}

/* seed 004: two-stage reduction (simd_sum, then simd_sum over 4 lanes of SIMD group 0) */
static void seed004(enigma_device *dev) {
    enigma_pipeline *p = load(dev, "seed004_two_stage_reduction.metal", "two_stage_sum");
    if (!p) return;
    const uint32_t groups = 33, tg = 128, count = groups * tg - 77;
    float *data = malloc(groups * tg * 4), *sums = malloc(groups * 4);
    for (uint32_t i = 0; i < groups * tg; i++) data[i] = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2 - 1);
    enigma_buffer *bd, *bs;
    OK(enigma_buffer_create_with_data(dev, data, groups * tg * 4, &bd));
    OK(enigma_buffer_create(dev, groups * 4, &bs));
    enigma_command *cmd;
    OK(enigma_command_create(p, &cmd));
    OK(enigma_command_set_buffer(cmd, 0, bd, 0));
    OK(enigma_command_set_buffer(cmd, 1, bs, 0));
    OK(enigma_command_set_bytes(cmd, 2, &count, 4));
    OK(enigma_command_enqueue(cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1},
                              (enigma_size3){tg, 1, 1}));
    OK(enigma_command_wait(cmd));
    OK(enigma_buffer_read(bs, 0, sums, groups * 4));
    int bad = 0;
    for (uint32_t g = 0; g < groups; g++) {
        double ref = 0;
        for (uint32_t i = g * tg; i < (g + 1) * tg && i < count; i++) ref += data[i];
        if (fabs(sums[g] - ref) > 1e-4 && bad++ < 3) fprintf(stderr, "  group %u: %g, expected %g\n", g, sums[g], ref);
    }
    CHECK(bad == 0, "seed004 two-stage: %d groups wrong", bad);
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(bd);
    enigma_buffer_destroy(bs);
    enigma_pipeline_destroy(p);
    free(data);
    free(sums);
}

int main(void) {
    rnd_seed_from_clock();
    enigma_device *dev = NULL;
    OK(enigma_device_open("cpu", &dev));
    if (!dev) return 1;
    seed003(dev);
    seed004(dev);
    enigma_device_close(dev);
    fprintf(stderr, "%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
