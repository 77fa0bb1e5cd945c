/* arena.c — bump allocation for everything one compile makes, freed in one call. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct en_arena_chunk {
    en_arena_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

/* Returned after an allocation failure so callers need not test each pointer; the
 * arena's out_of_memory flag is what they check. Large enough for any single node. */
static _Alignas(16) unsigned char oom_block[4096];

void en_arena_init(en_arena *a) { memset(a, 0, sizeof *a); }

void en_arena_free(en_arena *a) {
    en_arena_chunk *c = a->head;
    while (c) {
        en_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(a, 0, sizeof *a);
}

void *en_alloc(en_arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    en_arena_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t chunk = size > 60000 ? size : 64 * 1024 - sizeof(en_arena_chunk);
        c = malloc(sizeof(en_arena_chunk) + chunk);
        if (!c) {
            a->out_of_memory = true;
            memset(oom_block, 0, sizeof oom_block);
            return oom_block;
        }
        c->size = chunk;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    a->bytes_used += size;
    memset(p, 0, size);
    return p;
}

char *en_strndup(en_arena *a, const char *s, size_t n) {
    char *p = en_alloc(a, n + 1);
    if (!a->out_of_memory) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

char *en_strdup(en_arena *a, const char *s) { return en_strndup(a, s, strlen(s)); }

/* through en_buf_vprintf, which writes the common conversions itself: the parser names
 * every built-in vector and matrix type this way at each compile, and two vsnprintf calls
 * a name were a tenth of a compile-cache hit's instructions */
char *en_fmt(en_arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    en_buf b = {0};
    en_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (b.out_of_memory) a->out_of_memory = true;
    char *p = en_strndup(a, b.data ? b.data : "", b.data ? b.len : 0);
    en_buf_free(&b);
    return p;
}

void *en_grow(en_arena *a, void *items, size_t elem, int *cap, int need) {
    if (need <= *cap) return items;
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need) ncap *= 2;
    void *p = en_alloc(a, elem * (size_t)ncap);
    if (a->out_of_memory) return items; /* keeps the old array; EN_PUSH then drops */
    if (items) memcpy(p, items, elem * (size_t)*cap);
    *cap = ncap;
    return p;
}

bool en_streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

uint64_t en_hash64(const void *data, size_t n, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}
