/* pass.h — passes over the IR. Each runs on a verified module and leaves it verifiable;
 * the opening comment of each pass's file says what it needs and what it guarantees. */
#ifndef ENIGMA_PASS_H
#define ENIGMA_PASS_H

#include "../base/ctx.h"
#include "../ir/ir.h"

/* tailcall.c: a void function's calls of itself in tail position become a loop over its
 * body (the recursion MLX's LoopedElemToLoc uses); other recursion is left to inline.c.
 * True when it rewrote any function. */
EN_INTERNAL bool en_pass_tail_calls(en_ctx *c, ir_module *m);
/* inline.c: every IR_S_CALL replaced by the callee's body; recursion is an error;
 * helper functions are dropped from the module afterwards. */
EN_INTERNAL bool en_pass_inline(en_ctx *c, ir_module *m);
/* fold.c: constant propagation and folding, constant control flow and dead locals in
 * each kernel (after inline: helpers' locals are the kernel's). True unless out of memory. */
EN_INTERNAL bool en_pass_fold(en_ctx *c, ir_module *m);
/* uniformity.c: finds barriers under thread-dependent control flow. A barrier whose
 * reaching is provably non-uniform is an error; one that may be is a warning. */
EN_INTERNAL bool en_pass_uniformity(en_ctx *c, ir_module *m);

#endif
