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

/* The conversions plain_format takes: s, c, d, i, u, x and %%, with the length modifiers
 * l, ll and z, and no flags, width or precision. */
static bool plain_format(const char *fmt) {
    for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
        p++;
        if (*p == '%') {
            p++;
            continue;
        }
        if (*p == 'l') p += p[1] == 'l' ? 2 : 1;
        else if (*p == 'z') p++;
        if (!*p || !strchr("scdiux", *p)) return false;
        p++;
    }
    return true;
}

static void put_unsigned(en_buf *b, unsigned long long v, unsigned base) {
    char digits[24], *end = digits + sizeof digits, *q = end;
    do {
        *--q = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    en_buf_putn(b, q, (size_t)(end - q));
}

/* what vsnprintf would write for a plain_format format */
static void put_plain(en_buf *b, const char *fmt, va_list ap) {
    for (const char *p = fmt;;) {
        const char *pc = strchr(p, '%');
        if (!pc) {
            en_buf_puts(b, p);
            return;
        }
        en_buf_putn(b, p, (size_t)(pc - p));
        p = pc + 1;
        int length = 0; /* 0: int, 1: long, 2: long long, 3: size_t */
        if (*p == 'l') length = p[1] == 'l' ? (p++, 2) : 1, p++;
        else if (*p == 'z') length = 3, p++;
        char conv = *p++;
        if (conv == '%') {
            en_buf_putc(b, '%');
        } else if (conv == 's') {
            const char *str = va_arg(ap, const char *);
            en_buf_puts(b, str ? str : "(null)");
        } else if (conv == 'c') {
            en_buf_putc(b, (char)va_arg(ap, int));
        } else if (conv == 'd' || conv == 'i') {
            long long v = length == 0 ? va_arg(ap, int) : length == 1 ? va_arg(ap, long)
                          : length == 2 ? va_arg(ap, long long) : (long long)va_arg(ap, size_t);
            if (v < 0) en_buf_putc(b, '-');
            put_unsigned(b, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, 10);
        } else {
            unsigned long long v = length == 0 ? va_arg(ap, unsigned) : length == 1 ? va_arg(ap, unsigned long)
                                   : length == 2 ? va_arg(ap, unsigned long long) : va_arg(ap, size_t);
            put_unsigned(b, v, conv == 'x' ? 16 : 10);
        }
    }
}

/* The generated C is written by many small printfs, so this runs often: the common
 * conversions are written here (vsnprintf costs a few hundred instructions a call), the
 * rest are formatted straight into the free space, a second time only when they did not
 * fit. */
void en_buf_vprintf(en_buf *b, const char *fmt, va_list ap) {
    if (plain_format(fmt)) {
        put_plain(b, fmt, ap);
        return;
    }
    if (!buf_reserve(b, 0)) return;
    va_list ap2;
    va_copy(ap2, ap);
    size_t room = b->cap - b->len; /* with the NUL */
    int n = vsnprintf(b->data + b->len, room, fmt, ap);
    if (n > 0 && (size_t)n >= room && buf_reserve(b, (size_t)n)) vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    if (n > 0 && !b->out_of_memory) b->len += (size_t)n;
    b->data[b->len] = 0;
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

void en_digest_hex(const uint8_t digest[32], char hex[65]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[64] = 0;
}
