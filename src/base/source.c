/* source.c — the table of source files a compile reads, for locations and carets. */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int en_source_add(en_sources *s, const char *name, const char *text, size_t len) {
    en_source src = {
        .name = en_strdup(s->arena, name),
        .text = en_strndup(s->arena, text, len),
        .len = len,
    };
    EN_PUSH(s->arena, s->files, src);
    return s->files.count - 1;
}

int en_source_load(en_sources *s, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    en_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) en_buf_putn(&b, chunk, n);
    bool failed = ferror(f) || b.out_of_memory;
    int saved = errno;
    fclose(f);
    if (failed) {
        en_buf_free(&b);
        errno = saved ? saved : EIO;
        return -1;
    }
    int id = en_source_add(s, path, b.data ? b.data : "", b.len);
    en_buf_free(&b);
    return id;
}

const char *en_source_line(const en_sources *s, int file, int line, int *len) {
    *len = 0;
    if (!s || file < 0 || file >= s->files.count || line < 1) return NULL;
    const char *p = s->files.items[file].text, *end = p + s->files.items[file].len;
    for (int l = 1; l < line && p < end; l++) { /* memchr: a line of a large file is found often */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r') e++;
    *len = (int)(e - p);
    return p;
}
