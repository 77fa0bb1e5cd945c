/* compile.h — MSL source to verified kernel IR: the one function that runs the pipeline. */
#ifndef ENIGMA_COMPILE_H
#define ENIGMA_COMPILE_H

#include "../base/ctx.h"
#include "../ir/ir.h"

/* Runs every front-end stage and pass in order on source file `file` of the context.
 * Returns the module, or NULL when errors stop the pipeline; diagnostics are in c->diags.
 * With ENIGMA_DUMP_IR=<pass name> (or "all") in the environment, the IR after that pass
 * is appended to `dump` (if non-NULL). */
EN_INTERNAL ir_module *en_compile(en_ctx *c, int file, en_buf *dump);

#endif
