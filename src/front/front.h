/* front.h — the front end's stages: preprocess+lex, parse, check. Each reports into the
 * context's diagnostics and carries on after errors where it can. */
#ifndef ENIGMA_FRONT_H
#define ENIGMA_FRONT_H

#include "../base/ctx.h"
#include "../ir/ir.h"
#include "token.h"

typedef struct ast_unit ast_unit;

/* pp.c + lex.c: the tokens of source file `file` after preprocessing (includes expanded,
 * macros replaced, conditionals resolved); ends with an EN_TK_EOF token. */
EN_INTERNAL en_tokens en_preprocess(en_ctx *c, int file);
/* parse.c: the translation unit's syntax tree */
EN_INTERNAL ast_unit *en_parse(en_ctx *c, en_tokens toks);
/* check.c: types, names, overloads, templates and conversions resolved; IR out. Returns
 * NULL only on out-of-memory; with errors, returns what it could build. */
EN_INTERNAL ir_module *en_check(en_ctx *c, const ast_unit *unit);

#endif
