/* ctx.c — the compile context's life. */
#include "ctx.h"

#include <string.h>

void en_ctx_init(en_ctx *c) {
    memset(c, 0, sizeof *c);
    en_arena_init(&c->arena);
    c->sources.arena = &c->arena;
    c->diags.arena = &c->arena;
    c->diags.sources = &c->sources;
}

void en_ctx_free(en_ctx *c) { en_arena_free(&c->arena); }
