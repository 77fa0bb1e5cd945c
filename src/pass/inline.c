/* inline.c — STUB. */
#include "pass.h"
bool en_pass_inline(en_ctx *c, ir_module *m) { (void)c; (void)m; return true; }
