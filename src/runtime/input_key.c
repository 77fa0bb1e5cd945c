/* input_key.c — the digest of what a compile read, for a cache that skips emitting code.
 *
 * Contract: en_input_digest(c) is called after en_compile(c) succeeded, while the caller's
 * option arrays are alive. It digests, in order and each with its length: this build's
 * identity (ENIGMA_BUILD_ID, a digest of every source of the library: cmake/build_id.cmake),
 * every source file the compile read (the main file, each #include as found, the
 * <metal_stdlib> text), and the options that reach the IR without being text: the -D
 * definitions, the function constants, checked mode and the fold switch. The front end and
 * its passes are a function of exactly these (no clock, no environment, no file that was
 * not read), so two compiles with one digest make one IR, and a backend that keys its cache
 * on the digest (with its own options: src/cpu/jit.c) finds the code it built for that IR
 * without generating it again. Since the front end reads the files anew every time, an
 * edited header or a header that now shadows another changes the digest.
 *
 * A build without an identity (a compiler run outside CMake, as the fuzz build is) gets no
 * digest (false), and its backends key entries on their generated code alone. */
#include "input_key.h"

#include <string.h>

#include "../base/blake2b.h"
#include "../front/pp.h"

#if defined(__has_include)
#if __has_include("enigma_build_id.h")
#include "enigma_build_id.h"
#endif
#endif

/* a byte string with its length in front, so that no two sequences of strings digest alike */
static void put_bytes(en_blake2b *s, const void *data, size_t n) {
    uint64_t len = n;
    en_blake2b_update(s, &len, sizeof len);
    en_blake2b_update(s, data, n);
}

static void put_string(en_blake2b *s, const char *text) { put_bytes(s, text, text ? strlen(text) : 0); }

static void put_strings(en_blake2b *s, const char *const *items, int count) {
    uint64_t n = (uint64_t)(count > 0 ? count : 0);
    en_blake2b_update(s, &n, sizeof n);
    for (int i = 0; i < count; i++) put_string(s, items[i]);
}

bool en_input_digest(const en_ctx *c, uint8_t digest[32]) {
#ifndef ENIGMA_BUILD_ID
    (void)c;
    memset(digest, 0, 32);
    return false;
#else
    en_blake2b s;
    en_blake2b_init(&s);
    put_string(&s, "enigma compile inputs 1");
    put_string(&s, ENIGMA_BUILD_ID);
    const en_sources *src = &c->sources;
    uint64_t files = (uint64_t)src->files.count;
    en_blake2b_update(&s, &files, sizeof files);
    const char *builtin = en_metal_header_text();
    size_t builtin_len = strlen(builtin);
    for (int i = 0; i < src->files.count; i++) {
        const en_source *f = &src->files.items[i];
        put_string(&s, f->name);
        /* the <metal_stdlib> text is this build's (metal_headers.c), which the identity
         * covers: a mark stands for it (digesting its text was 7% of a cache hit) */
        if (f->len == builtin_len && !strcmp(f->name, "<metal_stdlib>") && !memcmp(f->text, builtin, builtin_len))
            put_string(&s, "this build's <metal_stdlib>");
        else
            put_bytes(&s, f->text, f->len);
    }
    put_strings(&s, c->defines, c->define_count);
    put_strings(&s, c->function_constants, c->function_constant_count);
    const uint8_t switches[2] = {c->checked, c->no_fold};
    put_bytes(&s, switches, sizeof switches);
    en_blake2b_final(&s, digest);
    return true;
#endif
}
