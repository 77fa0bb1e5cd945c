/* front_golden.c — runs one .metal file through the whole front end, as the library
 * does (en_compile: preprocess, parse, check, verify, inline, uniformity) but for the fold
 * pass (its cases show what the checker made of the source; tests/pass shows the fold
 * pass), for the golden suite in ok/ and err/:
 *
 *   front_golden FILE   "ok: N kernels" and the kernel IR (ir_print_module, with the
 *                       "; @LINE:COL" locations) when it compiles, else "failed"; then
 *                       every diagnostic as en_diags_render writes it
 *
 * A first line "// ARGS: -DNAME[=VALUE] -IDIR --constant=NAME=VALUE ..." in FILE gives the options the CLI
 * would pass. Exit status 0 whatever the verdict: run_case.cmake judges the output. */
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "ir/ir.h"
#include "runtime/compile.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: front_golden FILE\n");
        return 2;
    }
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_load(&c.sources, argv[1]);
    if (file < 0) {
        fprintf(stderr, "front_golden: cannot read %s\n", argv[1]);
        return 2;
    }
    const char *defines[16], *dirs[16], *constants[16];
    int ndefines = 0, ndirs = 0, nconstants = 0;
    const char *text = c.sources.files.items[file].text;
    if (strncmp(text, "// ARGS:", 8) == 0) {
        size_t n = strcspn(text, "\n");
        char *line = en_strndup(&c.arena, text + 8, n - 8);
        for (char *w = strtok(line, " \t"); w; w = strtok(NULL, " \t")) {
            if (!strncmp(w, "-D", 2) && ndefines < 16) defines[ndefines++] = w + 2;
            else if (!strncmp(w, "-I", 2) && ndirs < 16) dirs[ndirs++] = w + 2;
            else if (!strncmp(w, "--constant=", 11) && nconstants < 16) constants[nconstants++] = w + 11;
        }
    }
    c.defines = defines;
    c.define_count = ndefines;
    c.include_dirs = dirs;
    c.include_dir_count = ndirs;
    c.function_constants = constants;
    c.function_constant_count = nconstants;
    c.no_fold = true;

    en_buf out = {0};
    ir_module *m = en_compile(&c, file, NULL);
    if (m && !c.diags.errors) {
        en_buf_printf(&out, "ok: %d kernels\n", ir_module_kernel_count(m));
        ir_print_module(m, &out);
    } else {
        en_buf_puts(&out, "failed\n");
    }
    en_diags_render(&c.diags, &out);
    if (out.data) fputs(out.data, stdout);
    int rc = out.out_of_memory || c.arena.out_of_memory ? 1 : 0;
    en_buf_free(&out);
    en_ctx_free(&c);
    return rc;
}
