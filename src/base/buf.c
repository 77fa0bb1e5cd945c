/* buf.c — a growable heap string for generated code and rendered text. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void en_buf_free(en_buf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

static bool buf_reserve(en_buf *b, size_t extra) {
    if (b->out_of_memory) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->out_of_memory = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void en_buf_putn(en_buf *b, const char *s, size_t n) {
    if (!buf_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void en_buf_puts(en_buf *b, const char *s) { en_buf_putn(b, s, strlen(s)); }
void en_buf_putc(en_buf *b, char c) { en_buf_putn(b, &c, 1); }

void en_buf_vprintf(en_buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0 && buf_reserve(b, (size_t)n)) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void en_buf_printf(en_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    en_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *en_buf_take(en_buf *b) {
    char *p = b->data;
    if (!p) p = calloc(1, 1);
    memset(b, 0, sizeof *b);
    return p;
}
