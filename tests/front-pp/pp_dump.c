/* pp_dump.c — prints what the preprocessor makes of a .metal file, for the golden tests
 * in cases/: one line per token, then the rendered diagnostics.
 *
 *   pp_dump FILE          token lines "[FILE:]LINE:COL KIND SPELLING [=VALUE] [SUFFIX]"
 *                         (FILE only when the token comes from another file than the one
 *                         named), then the diagnostics as en_diags_render writes them
 *   pp_dump --diags FILE  the diagnostics only
 *
 * A first line "// ARGS: -DNAME[=VALUE] -IDIR ..." in FILE gives command-line options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "front/front.h"

static const char *kind_name(en_token_kind k) {
    switch (k) {
    case EN_TK_EOF: return "eof";
    case EN_TK_IDENT: return "ident";
    case EN_TK_INT: return "int";
    case EN_TK_FLOAT: return "float";
    case EN_TK_CHAR: return "char";
    case EN_TK_STRING: return "string";
    case EN_TK_PUNCT: return "punct";
    case EN_TK_PRAGMA: return "pragma";
    }
    return "?";
}

static void print_suffix(int s) {
    if (s & EN_LIT_U) putchar('u');
    if (s & EN_LIT_L) putchar('l');
    if (s & EN_LIT_F) putchar('f');
    if (s & EN_LIT_H) putchar('h');
    if (s & EN_LIT_BF) fputs("bf", stdout);
}

int main(int argc, char **argv) {
    bool diags_only = argc == 3 && strcmp(argv[1], "--diags") == 0;
    if (argc != 2 && !diags_only) {
        fprintf(stderr, "usage: pp_dump [--diags] FILE\n");
        return 2;
    }
    argv += argc - 2;
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_load(&c.sources, argv[1]);
    if (file < 0) {
        fprintf(stderr, "pp_dump: cannot read %s\n", argv[1]);
        return 2;
    }
    /* options from a first line "// ARGS: ..." */
    const char *defines[16], *dirs[16];
    int ndefines = 0, ndirs = 0;
    bool show_flags = false; /* --flags: [bol] for at_line_start, [sp] for has_space */
    const char *text = c.sources.files.items[file].text;
    if (strncmp(text, "// ARGS:", 8) == 0) {
        size_t n = strcspn(text, "\n");
        char *line = en_strndup(&c.arena, text + 8, n - 8);
        for (char *w = strtok(line, " \t"); w; w = strtok(NULL, " \t")) {
            if (!strncmp(w, "-D", 2) && ndefines < 16) defines[ndefines++] = w + 2;
            else if (!strncmp(w, "-I", 2) && ndirs < 16) dirs[ndirs++] = w + 2;
            else if (!strcmp(w, "--flags")) show_flags = true;
        }
    }
    c.defines = defines;
    c.define_count = ndefines;
    c.include_dirs = dirs;
    c.include_dir_count = ndirs;

    en_tokens toks = en_preprocess(&c, file);
    for (int i = 0; i < toks.count && !diags_only; i++) {
        const en_token *t = &toks.items[i];
        /* <metal_stdlib>'s own declarations are the same in every case: not shown */
        if (t->loc.file >= 0 && t->loc.file < c.sources.files.count &&
            strcmp(c.sources.files.items[t->loc.file].name, "<metal_stdlib>") == 0)
            continue;
        if (t->loc.file != file && t->loc.file >= 0 && t->loc.file < c.sources.files.count)
            printf("%s:", c.sources.files.items[t->loc.file].name);
        printf("%d:%d %s", t->loc.line, t->loc.col, kind_name(t->kind));
        if (t->kind != EN_TK_EOF && t->kind != EN_TK_PRAGMA) printf(" %s", t->text);
        if (t->kind == EN_TK_INT || t->kind == EN_TK_CHAR || t->kind == EN_TK_PRAGMA) {
            printf(" =%llu", (unsigned long long)t->ival);
        } else if (t->kind == EN_TK_FLOAT) {
            printf(" =%.9g", t->fval);
        }
        if ((t->kind == EN_TK_INT || t->kind == EN_TK_FLOAT) && t->lit_suffix) {
            putchar(' ');
            print_suffix(t->lit_suffix);
        }
        if (show_flags && t->at_line_start) fputs(" [bol]", stdout);
        if (show_flags && t->has_space) fputs(" [sp]", stdout);
        putchar('\n');
    }
    en_buf out = {0};
    en_diags_render(&c.diags, &out);
    if (out.data) fputs(out.data, stdout);
    en_buf_free(&out);
    en_ctx_free(&c);
    return 0;
}
