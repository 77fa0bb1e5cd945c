/* verify.c — STUB: the IR verifier. */
#include "ir.h"
bool ir_verify(const ir_module *m, en_diags *d, const char *after_pass) { (void)m; (void)d; (void)after_pass; return true; }
