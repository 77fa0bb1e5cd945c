/* test_cpu_input_key.c — the cpu backend's cache found by a compile's inputs
 * (src/runtime/input_key.c, src/cpu/jit.c input_key): a library built again from the same
 * inputs loads the program built before and writes nothing; every input that reaches the
 * code gives another program: a -D definition, a function constant, an included header's
 * text, a header that now shadows another in the include path, checked mode,
 * ENIGMA_CPU_OUTLINE and the C compiler's flags. An alias that names a missing entry is
 * rebuilt over. Each build is checked by running it on fresh random integers against the
 * value its inputs give (integers: exact, whatever the C compiler contracts). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test_util.h"
#include "cache_entries.h"

static char dir[256], cache_dir[300], kernel_path[300];
static enigma_device *dev;

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    REQUIRE(f ? ENIGMA_OK : ENIGMA_ERROR_IO);
    fputs(text, f);
    fclose(f);
}

static int count_entries(const char *suffix) { return cache_entries(cache_dir, suffix); }

/* out = in * SCALE + shift + BIAS: SCALE a -D definition, shift a function constant, BIAS
 * from bias.h, found beside the file or in the include path */
static const char kernel_source[] =
    "#include <metal_stdlib>\n"
    "#include \"bias.h\"\n"
    "using namespace metal;\n"
    "constant int shift [[function_constant(0)]];\n"
    "kernel void affine(device const int *in [[buffer(0)]], device int *out [[buffer(1)]],\n"
    "                   uint i [[thread_position_in_grid]]) {\n"
    "    out[i] = in[i] * SCALE + shift + BIAS;\n"
    "}\n"
    "kernel void negate(device const int *in [[buffer(0)]], device int *out [[buffer(1)]],\n"
    "                   uint i [[thread_position_in_grid]]) {\n"
    "    out[i] = -(in[i] * SCALE + shift + BIAS);\n"
    "}\n";

typedef struct inputs {
    int scale, shift;
    const char *const *include_dirs;
    int include_dir_count;
    bool checked;
    const char *flags;
} inputs;

/* builds the kernel file with these inputs and runs both kernels; true when each gives
 * what `bias` says BIAS is */
static bool runs_as(const inputs *in, int bias, const char *what) {
    char define[32], constant[32];
    snprintf(define, sizeof define, "SCALE=%d", in->scale);
    snprintf(constant, sizeof constant, "shift=%d", in->shift);
    const char *defines[] = {define}, *constants[] = {constant};
    enigma_compile_options opts = {.include_dirs = in->include_dirs, .include_dir_count = in->include_dir_count,
                                   .defines = defines, .define_count = 1, .function_constants = constants,
                                   .function_constant_count = 1, .checked = in->checked, .backend_flags = in->flags};
    enigma_library *lib = NULL;
    enigma_status st = enigma_library_create_from_file(dev, kernel_path, &opts, &lib);
    CHECK(st == ENIGMA_OK, "%s: build: %s", what, enigma_last_error());
    if (st != ENIGMA_OK) {
        enigma_library_destroy(lib);
        return false;
    }
    enum { N = 1024 };
    int32_t host_in[N], host_out[N];
    for (int i = 0; i < N; i++) host_in[i] = (int32_t)(rnd() % 20001) - 10000;
    bool ok = true;
    const char *kernels[] = {"affine", "negate"};
    for (int k = 0; k < 2 && ok; k++) {
        enigma_pipeline *p = NULL;
        enigma_command *cmd = NULL;
        enigma_buffer *a = NULL, *b = NULL;
        ok = enigma_pipeline_create(lib, kernels[k], &p) == ENIGMA_OK && enigma_command_create(p, &cmd) == ENIGMA_OK &&
             enigma_buffer_create_with_data(dev, host_in, sizeof host_in, &a) == ENIGMA_OK &&
             enigma_buffer_create(dev, sizeof host_out, &b) == ENIGMA_OK &&
             enigma_command_set_buffer(cmd, 0, a, 0) == ENIGMA_OK && enigma_command_set_buffer(cmd, 1, b, 0) == ENIGMA_OK &&
             enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, 1, 1}, (enigma_size3){64, 1, 1}) ==
                 ENIGMA_OK &&
             enigma_buffer_read(b, 0, host_out, sizeof host_out) == ENIGMA_OK;
        CHECK(ok, "%s: %s: %s", what, kernels[k], enigma_last_error());
        for (int i = 0; i < N && ok; i++) {
            int32_t want = host_in[i] * in->scale + in->shift + bias;
            if (k == 1) want = -want;
            ok = host_out[i] == want;
            CHECK(ok, "%s: %s[%d] = %d, expected %d (SCALE %d, shift %d, BIAS %d)", what, kernels[k], i, host_out[i],
                  want, in->scale, in->shift, bias);
        }
        enigma_buffer_destroy(a);
        enigma_buffer_destroy(b);
        enigma_command_destroy(cmd);
        enigma_pipeline_destroy(p);
    }
    enigma_library_destroy(lib);
    return ok;
}

static void set_bias(const char *folder, int bias) {
    char path[400], text[64];
    snprintf(path, sizeof path, "%s/bias.h", folder);
    snprintf(text, sizeof text, "#define BIAS (%d)\n", bias);
    write_file(path, text);
}

int main(void) {
    rnd_seed_from_clock();
    snprintf(dir, sizeof dir, "%s/enigma-input-key-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) return 1;
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", dir);
    setenv("ENIGMA_CACHE_DIR", cache_dir, 1);
    unsetenv("ENIGMA_CPU_OUTLINE");
    snprintf(kernel_path, sizeof kernel_path, "%s/affine.metal", dir);
    write_file(kernel_path, kernel_source);
    REQUIRE(enigma_device_open("cpu", &dev));

    int scale = (int)(rnd() % 7) + 2, shift = (int)(rnd() % 100) - 50, bias = (int)(rnd() % 1000);
    inputs in = {.scale = scale, .shift = shift};
    set_bias(dir, bias);

    /* a cold build: the program and an alias of it under the key of its inputs */
    CHECK(runs_as(&in, bias, "cold"), "cold build");
    int so = count_entries(".so"), alias = count_entries(".alias");
    CHECK(so == 1, "one program after a cold build, found %d", so);
    /* the library builds both kernels as one program: each kernel's own alias, and one for
     * the inputs */
    CHECK(alias == 3, "three aliases after a cold build, found %d", alias);

    /* the same inputs: the same program, nothing written */
    CHECK(runs_as(&in, bias, "again"), "the same inputs again");
    CHECK(count_entries(".so") == so && count_entries(".alias") == alias, "building the same inputs wrote %d .so, %d .alias",
          count_entries(".so") - so, count_entries(".alias") - alias);

    /* each input that reaches the code gives another program */
    inputs other = in;
    other.scale = scale + 1;
    CHECK(runs_as(&other, bias, "-D SCALE"), "another definition");
    other = in;
    other.shift = shift + 3;
    CHECK(runs_as(&other, bias, "function constant"), "another function constant");
    set_bias(dir, bias + 11);
    CHECK(runs_as(&in, bias + 11, "header text"), "an edited header");
    set_bias(dir, bias); /* and back: that program is found again */
    CHECK(runs_as(&in, bias, "header text back"), "the header as it was");

    /* a header found in the include path, then shadowed by one earlier in it */
    char first[400], second[400], own[400];
    snprintf(first, sizeof first, "%s/first", dir);
    snprintf(second, sizeof second, "%s/second", dir);
    snprintf(own, sizeof own, "%s/bias.h", dir);
    REQUIRE(mkdir(first, 0700) == 0 && mkdir(second, 0700) == 0 ? ENIGMA_OK : ENIGMA_ERROR_IO);
    unlink(own);
    const char *path_dirs[] = {first, second};
    inputs searched = in;
    searched.include_dirs = path_dirs;
    searched.include_dir_count = 2;
    set_bias(second, bias + 20);
    CHECK(runs_as(&searched, bias + 20, "include path"), "the header of the second folder");
    set_bias(first, bias + 30);
    CHECK(runs_as(&searched, bias + 30, "shadowed"), "the header of the first folder, which now shadows the second");
    set_bias(dir, bias);

    /* checked mode, the outline setting and the C compiler's flags each give a program */
    so = count_entries(".so");
    inputs checked = in;
    checked.checked = true;
    CHECK(runs_as(&checked, bias, "checked"), "checked mode");
    CHECK(count_entries(".so") == so + 1, "checked mode built its own program (%d new)", count_entries(".so") - so);
    setenv("ENIGMA_CPU_OUTLINE", "1", 1);
    CHECK(runs_as(&in, bias, "outlined"), "ENIGMA_CPU_OUTLINE=1");
    unsetenv("ENIGMA_CPU_OUTLINE");
    CHECK(count_entries(".so") == so + 2, "ENIGMA_CPU_OUTLINE built its own program (%d new)", count_entries(".so") - so);
    inputs flagged = in;
    flagged.flags = "-O1 -march=native";
    CHECK(runs_as(&flagged, bias, "flags"), "other C compiler flags");
    CHECK(count_entries(".so") == so + 3, "other flags built their own program (%d new)", count_entries(".so") - so);

    /* an alias whose program is gone: rebuilt, and the alias written again */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -f %s/*.so", cache_dir);
    CHECK(system(cmd) == 0, "remove the programs");
    CHECK(runs_as(&in, bias, "dangling alias"), "built over an alias of a missing program");
    CHECK(count_entries(".so") == 1, "one program after the rebuild, found %d", count_entries(".so"));

    enigma_device_close(dev);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    if (failures) fprintf(stderr, "cpu input key: %d check(s) failed\n", failures);
    else printf("cpu input key: ok\n");
    return failures ? 1 : 0;
}
