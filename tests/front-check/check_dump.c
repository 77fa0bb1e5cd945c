/* check_dump.c — prints what the checker makes of a .metal file, for the golden tests in
 * cases/ and seeds/:
 *
 *   check_dump FILE            the IR right after the checker (verified), then the
 *                              diagnostics as en_diags_render writes them
 *   check_dump --diags FILE    the diagnostics only
 *   check_dump --compile FILE  the whole pipeline (en_compile: check, inline, uniformity);
 *                              prints "ok: N kernels" or the diagnostics; exit 1 on errors
 *
 * The file goes through the real preprocessor and parser first. */
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "front/front.h"
#include "ir/ir.h"
#include "runtime/compile.h"

int main(int argc, char **argv) {
    const char *mode = argc == 3 ? argv[1] : "";
    if (argc != 2 && !(argc == 3 && (strcmp(mode, "--diags") == 0 || strcmp(mode, "--compile") == 0))) {
        fprintf(stderr, "usage: check_dump [--diags|--compile] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_load(&c.sources, path);
    if (file < 0) {
        fprintf(stderr, "check_dump: cannot read %s\n", path);
        return 2;
    }
    en_buf out = {0};
    int rc = 0;
    if (strcmp(mode, "--compile") == 0) {
        ir_module *m = en_compile(&c, file, NULL);
        if (m && !c.diags.errors)
            en_buf_printf(&out, "ok: %d kernel%s\n", ir_module_kernel_count(m),
                          ir_module_kernel_count(m) == 1 ? "" : "s");
        else
            rc = 1;
        en_diags_render(&c.diags, &out);
    } else {
        en_tokens toks = en_preprocess(&c, file);
        ir_module *m = NULL;
        if (!c.diags.errors) {
            ast_unit *unit = en_parse(&c, toks);
            m = en_check(&c, unit);
            if (m && !c.diags.errors) ir_verify(m, &c.diags, "check");
        }
        if (m && !c.diags.errors && strcmp(mode, "--diags") != 0) ir_print_module_flags(m, &out, 0);
        en_diags_render(&c.diags, &out);
    }
    if (out.data) fputs(out.data, stdout);
    if (out.out_of_memory || c.arena.out_of_memory) rc = 1;
    en_buf_free(&out);
    en_ctx_free(&c);
    return rc;
}
