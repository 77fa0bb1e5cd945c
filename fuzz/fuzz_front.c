/* fuzz_front.c — libFuzzer target over the whole front end: one input is one .metal
 * file, taken through en_compile (preprocess, lex, parse, check, IR verification,
 * inline, uniformity) in a fresh compile context, then its diagnostics are rendered.
 *
 * Everything a compile makes lives in the context's arena, so en_ctx_free must leave
 * nothing behind: LeakSanitizer checks that after every input. Built by run.sh. */
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "ir/ir.h"
#include "runtime/compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_add(&c.sources, "fuzz.metal", (const char *)data, size);
    ir_module *m = en_compile(&c, file, NULL);
    en_buf out = {0};
    if (m && !c.diags.errors) ir_print_module(m, &out); /* the printer walks every node */
    en_diags_render(&c.diags, &out);
    en_buf_free(&out);
    en_ctx_free(&c);
    return 0;
}
