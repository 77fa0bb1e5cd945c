/* test_cpu_cache.c — the compiled-kernel cache of the cpu backend (src/cpu/jit.c,
 * src/base/cache.c): a second build is a hit that compiles nothing; a corrupt entry and a
 * foreign entry (another program's .so under this key) are rebuilt, never loaded; no_cache
 * writes nothing; a compiler failure is an internal error carrying the compiler's output.
 * Also SHA-256 against the FIPS 180-4 example digests. */
#include "kb.h"
#include "cache_entries.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/blake2b.h"
#include "base/sha256.h"

static char cache_dir[256];

static int count_entries(const char *suffix) { return cache_entries(cache_dir, suffix); }

/* out[i] = a[i] * k: k changes the generated code, so two kernels have two keys */
static void make_scale(double k) {
    kb_begin("scale");
    ir_var *a = param_buffer("a", T_F32, 0), *out = param_buffer("out", T_F32, 1);
    ir_var *tid = param_attr("tid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    set(AT(V(out), V(tid)), BIN(IR_OP_MUL, AT(V(a), V(tid)), F(k)));
}

static enigma_status try_build(bool no_cache, en_program **p, en_buf *err) {
    en_build_options o = {0};
    o.no_cache = no_cache;
    return BE->build(&DEV, K.m, &o, p, err);
}

/* runs the scale kernel and checks out = a * k */
static bool scale_works(en_program *p, double k) {
    enum { N = 256 };
    float *ha, *ho;
    void *A = buf_new(N * 4, (void **)&ha), *O = buf_new(N * 4, (void **)&ho);
    for (int i = 0; i < N; i++) ha[i] = rndf();
    en_launch L = launch3(false, N / 64, 1, 1, 64, 1, 1);
    bind(&L, 0, A, N * 4), bind(&L, 1, O, N * 4);
    bool ok = run(p, &L);
    for (int i = 0; i < N && ok; i++) ok = ho[i] == (float)((double)ha[i] * (float)k);
    BE->buffer_free(&DEV, A), BE->buffer_free(&DEV, O);
    return ok;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sha256_of(const uint8_t *data, size_t n, size_t piece, char hex[65]) {
    en_sha256 s;
    uint8_t d[32];
    en_sha256_init(&s);
    for (size_t at = 0; at < n; at += piece) en_sha256_update(&s, data + at, n - at < piece ? n - at : piece);
    en_sha256_final(&s, d);
    en_digest_hex(d, hex);
}

/* the portable rounds and the SHA extensions give one digest, for lengths around every
 * block boundary and pieces that cross blocks at every offset, on fresh random bytes;
 * a million 'a's (FIPS 180-2's long vector) both ways */
static void sha256_hardware_matches_portable(void) {
    bool hardware = en_sha256_set_hardware(true);
    printf("sha256: the SHA extensions are %s\n", hardware ? "used" : "not available here");
    size_t big = 1000000;
    uint8_t *data = malloc(big);
    CHECK(data != NULL, "out of memory");
    if (!data) return;
    srand((unsigned)time(NULL));
    for (size_t i = 0; i < big; i++) data[i] = (uint8_t)rand();
    char a[65], b[65];
    for (size_t n = 0; n < 300; n++) {
        size_t piece = 1 + (size_t)rand() % 97;
        en_sha256_set_hardware(true);
        sha256_of(data, n, piece, a);
        en_sha256_set_hardware(false);
        sha256_of(data, n, n ? n : 1, b);
        CHECK(strcmp(a, b) == 0, "sha256 of %zu random bytes in pieces of %zu: %s, portable %s", n, piece, a, b);
    }
    en_sha256_set_hardware(true);
    sha256_of(data, big, 4099, a);
    en_sha256_set_hardware(false);
    sha256_of(data, big, big, b);
    CHECK(strcmp(a, b) == 0, "sha256 of 1 MB: %s, portable %s", a, b);
    memset(data, 'a', big);
    for (int on = 0; on < 2; on++) {
        en_sha256_set_hardware(on);
        sha256_of(data, big, on ? 1000 : 333, a);
        CHECK(strcmp(a, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
              "sha256 of a million 'a' (%s) = %s", on ? "hardware" : "portable", a);
    }
    en_sha256_set_hardware(true);
    free(data);
}

static void sha256_vectors(void) {
    struct { const char *text, *hex; } v[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < EN_COUNT(v); i++) {
        en_sha256 s;
        uint8_t d[32];
        char hex[65];
        en_sha256_init(&s);
        /* in two pieces, to cross the block-buffer path */
        size_t n = strlen(v[i].text), half = n / 2;
        en_sha256_update(&s, v[i].text, half);
        en_sha256_update(&s, v[i].text + half, n - half);
        en_sha256_final(&s, d);
        en_digest_hex(d, hex);
        CHECK(strcmp(hex, v[i].hex) == 0, "sha256(\"%s\") = %s", v[i].text, hex);
    }
}

/* BLAKE2b-256 (the CPU cache's keys) of bytes (i * 131 + 7) & 255, i < n, fed whole, a byte
 * at a time and in random pieces (block boundaries at every offset); the digests are Python's
 * hashlib.blake2b(data, digest_size=32), an implementation of its own */
static void blake2b_vectors(void) {
    static const struct { size_t n; const char *hex; } v[] = {
        {0, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"},
        {1, "873e4fe9e41e924911bba3ec53ff4782efc8c0f244fb75c879f8a4328d0142ca"},
        {3, "381bc13d480016635ca5794d4fa45b45637fa14b7312d4a5e9f6a470ba08aa59"},
        {127, "4a93be37d3af03b9b7210a679fd9ebecd7b4acbd94d63dce25b42da6883ae32f"},
        {128, "c945e7bf8641fd725826599b1b32c14553d474798f7d07072c1dacca292464a4"},
        {129, "67e9bafa1f1d736a9d5cee5a9aabd6634a323bab977dc8e40fec2bda7b7b7b61"},
        {255, "ccbf53d2bf849ea0558ec7821ad2f4fe9364231a27f32c5eeda21c25fbb6dd31"},
        {256, "abebbd91f14ecf1d601a9e9be2c2be68c0e1d42ed52fb6c0cf8cad221bfda721"},
        {257, "4a277385bc6ce52ac7019426661bc6ed256973f276816cc41669aa3bfb24313d"},
        {1000, "109d4c66307a14be694feb326a7b83e35c22e0efbfe4a8ebb6360c6eca00b09e"},
        {65541, "0c74ceb87449ecfffd4e455d195648eaca3297f8c637f381982f54aa819d68b5"},
    };
    uint8_t *data = malloc(65541);
    CHECK(data != NULL, "out of memory");
    if (!data) return;
    for (size_t i = 0; i < 65541; i++) data[i] = (uint8_t)((i * 131 + 7) & 255);
    for (size_t i = 0; i < EN_COUNT(v); i++)
        for (int way = 0; way < 3; way++) {
            en_blake2b s;
            uint8_t d[32];
            char hex[65];
            en_blake2b_init(&s);
            for (size_t at = 0; at < v[i].n;) {
                size_t piece = way == 0 ? v[i].n : way == 1 ? 1 : 1 + (size_t)rand() % 300;
                if (piece > v[i].n - at) piece = v[i].n - at;
                en_blake2b_update(&s, data + at, piece);
                at += piece;
            }
            en_blake2b_final(&s, d);
            en_digest_hex(d, hex);
            CHECK(strcmp(hex, v[i].hex) == 0, "blake2b of %zu bytes (%s) = %s, expected %s", v[i].n,
                  way == 0 ? "whole" : way == 1 ? "a byte at a time" : "random pieces", hex, v[i].hex);
        }
    free(data);
}

int main(void) {
    blake2b_vectors();
    sha256_vectors();
    sha256_hardware_matches_portable();
    en_sha256_set_hardware(false);
    sha256_vectors();
    en_sha256_set_hardware(true);
    snprintf(cache_dir, sizeof cache_dir, "%s/enigma-cache-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(cache_dir)) return 1;
    setenv("ENIGMA_CACHE_DIR", cache_dir, 1);
    dev_open();
    en_buf err = {0};
    en_program *p = NULL, *q = NULL;

    /* cold build writes one entry; the second build is a hit and writes nothing */
    make_scale(3.0);
    CHECK(try_build(false, &p, &err) == ENIGMA_OK, "cold build: %s", err.data);
    CHECK(count_entries(".so") == 1, "one entry after a cold build, found %d", count_entries(".so"));
    CHECK(p && scale_works(p, 3.0), "cold build runs");
    char key[65];
    snprintf(key, sizeof key, "%s", p ? p->key : "");
    if (p) BE->program_free(&DEV, p), p = NULL;
    double t0 = now_ms();
    CHECK(try_build(false, &p, &err) == ENIGMA_OK, "hit: %s", err.data);
    double hit_ms = now_ms() - t0;
    fprintf(stderr, "cache hit: %.3f ms\n", hit_ms);
    CHECK(hit_ms < 200, "a cache hit took %.1f ms: it compiled", hit_ms);
    CHECK(count_entries(".so") == 1 && count_entries(".c") == 0, "the hit wrote nothing");
    CHECK(p && strcmp(p->key, key) == 0 && scale_works(p, 3.0), "the hit runs");
    if (p) BE->program_free(&DEV, p), p = NULL;

    /* a corrupt entry is rebuilt */
    char path[512];
    snprintf(path, sizeof path, "%s/%s.so", cache_dir, key);
    FILE *f = fopen(path, "wb");
    fputs("not a shared object", f);
    fclose(f);
    CHECK(try_build(false, &p, &err) == ENIGMA_OK, "build over a corrupt entry: %s", err.data);
    CHECK(p && scale_works(p, 3.0), "rebuilt over a corrupt entry");
    if (p) BE->program_free(&DEV, p), p = NULL;
    kb_end();

    /* a foreign entry (a valid .so of another kernel under this key) is rebuilt */
    make_scale(5.0);
    CHECK(try_build(false, &q, &err) == ENIGMA_OK, "second kernel: %s", err.data);
    char other[512];
    snprintf(other, sizeof other, "%s/%s.so", cache_dir, q ? q->key : "");
    if (q) BE->program_free(&DEV, q), q = NULL;
    kb_end();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", other, path);
    CHECK(system(cmd) == 0, "copy the foreign entry");
    make_scale(3.0);
    CHECK(try_build(false, &p, &err) == ENIGMA_OK, "build over a foreign entry: %s", err.data);
    CHECK(p && scale_works(p, 3.0), "a foreign entry was not used");
    if (p) BE->program_free(&DEV, p), p = NULL;

    /* no_cache writes nothing */
    int before = count_entries(".so");
    kb_end();
    make_scale(7.0);
    CHECK(try_build(true, &p, &err) == ENIGMA_OK, "no_cache build: %s", err.data);
    CHECK(p && scale_works(p, 7.0), "no_cache build runs");
    CHECK(count_entries(".so") == before, "no_cache wrote an entry");
    if (p) BE->program_free(&DEV, p), p = NULL;

    /* a failing compiler is enigma's bug, reported with its output */
    setenv("ENIGMA_CC", "false", 1);
    err.len = 0;
    enigma_status st = try_build(true, &p, &err);
    CHECK(st == ENIGMA_ERROR_INTERNAL, "a failing compiler gives %d", (int)st);
    CHECK(err.data && strstr(err.data, "internal error: generated C failed to compile (this is a bug in enigma)"),
          "message: %s", err.data ? err.data : "(none)");
    unsetenv("ENIGMA_CC");
    kb_end();

    /* ENIGMA_CC of several words: a launcher before the compiler ("ccache gcc"); the
     * launcher here logs each run, so the test sees that it, not cc alone, was used */
    char launcher[512], log[512];
    snprintf(launcher, sizeof launcher, "%s/launch.sh", cache_dir);
    snprintf(log, sizeof log, "%s/launch.log", cache_dir);
    f = fopen(launcher, "w");
    fprintf(f, "#!/bin/sh\necho \"$*\" >> '%s'\nexec \"$@\"\n", log);
    fclose(f);
    chmod(launcher, 0755);
    snprintf(cmd, sizeof cmd, "%s  cc", launcher);
    setenv("ENIGMA_CC", cmd, 1);
    make_scale(11.0);
    err.len = 0;
    CHECK(try_build(true, &p, &err) == ENIGMA_OK, "ENIGMA_CC with a launcher: %s", err.data ? err.data : "");
    CHECK(p && scale_works(p, 11.0), "built through the launcher and runs");
    if (p) BE->program_free(&DEV, p), p = NULL;
    f = fopen(log, "r");
    char seen[4096] = "";
    size_t got = f ? fread(seen, 1, sizeof seen - 1, f) : 0;
    seen[got] = 0;
    if (f) fclose(f);
    CHECK(strstr(seen, "cc --version") && strstr(seen, "cc -std=gnu11"),
          "the launcher ran the compiler for its identity and the build: %s", seen);
    /* a compiler that crashes (an "internal compiler error", gcc 12 on MLX's sort) is tried
     * once more without loop vectorisation; this one crashes unless it is given that flag */
    char crashing[512];
    snprintf(crashing, sizeof crashing, "%s/crash.sh", cache_dir);
    f = fopen(crashing, "w");
    fprintf(f, "#!/bin/sh\ncase \"$*\" in *-fno-tree-loop-vectorize*) exec cc \"$@\" ;; esac\n"
               "echo 'x.c:1:1: internal compiler error: in extract_insn, at recog.cc:2791' >&2\nexit 1\n");
    fclose(f);
    chmod(crashing, 0755);
    setenv("ENIGMA_CC", crashing, 1);
    kb_end(); /* (the launcher's kernel) */
    make_scale(13.0);
    err.len = 0;
    CHECK(try_build(true, &p, &err) == ENIGMA_OK, "a crashing compiler is retried: %s", err.data ? err.data : "");
    CHECK(p && scale_works(p, 13.0), "built by the retry and runs");
    if (p) BE->program_free(&DEV, p), p = NULL;
    setenv("ENIGMA_CC", " \t", 1);
    err.len = 0;
    CHECK(try_build(true, &p, &err) == ENIGMA_ERROR_UNAVAILABLE && err.data && strstr(err.data, "names no C compiler"),
          "a blank ENIGMA_CC: %s", err.data ? err.data : "(none)");
    /* no compiler at all (a wheel on a machine without one): unavailable, saying why */
    setenv("ENIGMA_CC", "enigma-test-no-such-cc", 1); /* another compiler: another cache key */
    err.len = 0;
    CHECK(try_build(true, &p, &err) == ENIGMA_ERROR_UNAVAILABLE && err.data &&
              strstr(err.data, "compiles each kernel with a C compiler at run time"),
          "a missing compiler: %s", err.data ? err.data : "(none)");
    unsetenv("ENIGMA_CC");
    kb_end();

    en_buf_free(&err);
    BE->close(&DEV);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", cache_dir);
    fprintf(stderr, "%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
