/* ctx.h — one compile's context: its arena, its source files, its diagnostics and its
 * options. Created by the runtime (src/runtime/compile.c), passed to every stage. */
#ifndef ENIGMA_CTX_H
#define ENIGMA_CTX_H

#include "base.h"

typedef struct en_ctx {
    en_arena arena;        /* everything of this compile; freed with the library */
    en_sources sources;
    en_diags diags;
    const char *const *include_dirs;
    int include_dir_count;
    const char *const *defines; /* "NAME" or "NAME=VALUE" */
    int define_count;
    const char *const *function_constants; /* "NAME=VALUE" or "INDEX=VALUE" */
    int function_constant_count;
    bool checked;          /* checked-mode instrumentation requested */
    bool no_fold;          /* skip the fold pass: the IR as the checker and the inliner made
                              it (the front end's golden tests compare that) */
} en_ctx;

EN_INTERNAL void en_ctx_init(en_ctx *c);
EN_INTERNAL void en_ctx_free(en_ctx *c);

#endif
