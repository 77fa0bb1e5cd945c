/* compile.c — the pipeline, in order:
 *
 *   .metal ─► preprocess+lex ─► parse ─► check ─► [verify] ─► tail calls ─► [verify]
 *           ─► inline ─► [verify] ─► fold ─► [verify] ─► uniformity ─► [verify] ─► kernel IR
 *           (then a backend: src/cpu, src/cuda)
 *
 * Each stage reports into the context's diagnostics. The verifier runs between passes,
 * so a pass that breaks an invariant is caught at the pass, not in a backend. */
#include "compile.h"

#include <stdlib.h>

#include "../front/front.h"
#include "../pass/pass.h"

static bool dump_wanted(const char *pass) {
    const char *want = getenv("ENIGMA_DUMP_IR");
    return want && (en_streq(want, "all") || en_streq(want, pass));
}

/* verifies after `pass` and dumps if asked; false stops the pipeline */
static bool after_pass(en_ctx *c, ir_module *m, const char *pass, en_buf *dump) {
    if (!m || c->arena.out_of_memory || c->diags.errors) return false;
    if (!ir_verify(m, &c->diags, pass)) return false;
    if (dump && dump_wanted(pass)) {
        en_buf_printf(dump, "; ---- IR after %s ----\n", pass);
        ir_print_module(m, dump);
    }
    return true;
}

ir_module *en_compile(en_ctx *c, int file, en_buf *dump) {
    en_tokens toks = en_preprocess(c, file);
    if (c->diags.errors) return NULL;
    ast_unit *unit = en_parse(c, toks);
    ir_module *m = en_check(c, unit);
    if (!after_pass(c, m, "check", dump)) return NULL;
    if (en_pass_tail_calls(c, m) && !after_pass(c, m, "tailcall", dump)) return NULL; /* when it changed any */
    en_pass_inline(c, m);
    if (!after_pass(c, m, "inline", dump)) return NULL;
    if (!c->no_fold) {
        en_pass_fold(c, m);
        if (!after_pass(c, m, "fold", dump)) return NULL;
    }
    en_pass_uniformity(c, m);
    if (!after_pass(c, m, "uniformity", dump)) return NULL;
    return m;
}
