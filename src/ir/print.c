/* print.c — STUB: the IR printer. */
#include "ir.h"
void ir_print_module(const ir_module *m, en_buf *out) { (void)m; en_buf_puts(out, "; printer not built\n"); }
void ir_print_func(const ir_module *m, const ir_func *f, en_buf *out) { (void)m; (void)f; (void)out; }
void ir_print_expr(const ir_module *m, const ir_expr *e, en_buf *out) { (void)m; (void)e; (void)out; }
