/* parse_dump.c — prints what the parser makes of a .metal file, for the golden tests in
 * cases/ and seeds/:
 *
 *   parse_dump FILE          the syntax tree (ast_dump), then the diagnostics as
 *                            en_diags_render writes them
 *   parse_dump --diags FILE  the diagnostics only
 *
 * The file goes through the real preprocessor (en_preprocess) first, then en_parse. */
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "front/ast.h"
#include "front/front.h"

int main(int argc, char **argv) {
    bool diags_only = argc == 3 && strcmp(argv[1], "--diags") == 0;
    if (argc != 2 && !diags_only) {
        fprintf(stderr, "usage: parse_dump [--diags] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_load(&c.sources, path);
    if (file < 0) {
        fprintf(stderr, "parse_dump: cannot read %s\n", path);
        return 2;
    }
    en_tokens toks = en_preprocess(&c, file);
    ast_unit *unit = en_parse(&c, toks);
    en_buf out = {0};
    /* what <metal_stdlib> declares (its type traits) is the same in every case: not shown */
    int kept = 0;
    for (int i = 0; unit && i < unit->decls.count; i++) {
        const ast_decl *d = unit->decls.items[i];
        int f = d ? d->loc.file : -1;
        bool stdlib = f >= 0 && f < c.sources.files.count && strcmp(c.sources.files.items[f].name, "<metal_stdlib>") == 0;
        if (!stdlib) unit->decls.items[kept++] = unit->decls.items[i];
    }
    if (unit) unit->decls.count = kept;
    if (!diags_only) ast_dump(unit, &out);
    en_diags_render(&c.diags, &out);
    if (out.data) fputs(out.data, stdout);
    int rc = out.out_of_memory || c.arena.out_of_memory ? 1 : 0;
    en_buf_free(&out);
    en_ctx_free(&c);
    return rc;
}
