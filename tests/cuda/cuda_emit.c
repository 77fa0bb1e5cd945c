/* cuda_emit.c — a small tool for the cuda tests: MSL file -> the cuda backend's CUDA C
 * on stdout (diagnostics on stderr; exit 2 when the front end rejects the file). */
#include <stdio.h>

#include "base/ctx.h"
#include "cuda/internal.h"
#include "runtime/compile.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: cuda_emit FILE.metal\n");
        return 1;
    }
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_load(&c.sources, argv[1]);
    if (file < 0) {
        perror(argv[1]);
        return 1;
    }
    ir_module *m = en_compile(&c, file, NULL);
    if (!m || c.diags.errors) {
        en_buf text = {0};
        en_diags_render(&c.diags, &text);
        fputs(text.data ? text.data : "", stderr);
        en_buf_free(&text);
        en_ctx_free(&c);
        return 2;
    }
    en_buf out = {0}, err = {0};
    enigma_status st = en_cuda_emit(m, &out, &err);
    if (st == ENIGMA_OK) fputs(out.data, stdout);
    else fprintf(stderr, "%s\n", err.data);
    en_buf_free(&out);
    en_buf_free(&err);
    en_ctx_free(&c);
    return st == ENIGMA_OK ? 0 : 1;
}
