/* parse.c — STUB: the parser. */
#include "front.h"
ast_unit *en_parse(en_ctx *c, en_tokens toks) { (void)c; (void)toks; return NULL; }
