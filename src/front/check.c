/* check.c — STUB: the checker. */
#include "front.h"
ir_module *en_check(en_ctx *c, const ast_unit *unit) {
    (void)unit;
    en_error(&c->diags, (en_loc){-1, 0, 0}, "internal error: the checker is not built yet");
    return NULL;
}
