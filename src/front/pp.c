/* pp.c — STUB: the preprocessor (owned by the front-end lexing work). */
#include "front.h"
en_tokens en_preprocess(en_ctx *c, int file) {
    en_error(&c->diags, (en_loc){file, 1, 1}, "internal error: the preprocessor is not built yet");
    return (en_tokens){0};
}
