/* base.h — the support layer every stage uses: arena, string buffer, source files,
 * diagnostics. Internal to libenigma; the public API is include/enigma.h. */
#ifndef ENIGMA_BASE_H
#define ENIGMA_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define EN_INTERNAL __attribute__((visibility("hidden")))
#define EN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define EN_INTERNAL
#define EN_PRINTF(f, a)
#endif

#define EN_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- arena ------------------------------------------------------------------------
 * All memory of one compile lives in one arena and is freed in one call. An allocation
 * failure sets `out_of_memory`, which stays set; callers check it once at stage ends
 * (SQLite's habit) and the allocator returns a zeroed static block meanwhile so that no
 * caller has to test every pointer. */
typedef struct en_arena_chunk en_arena_chunk;
typedef struct en_arena {
    en_arena_chunk *head;
    size_t bytes_used;
    bool out_of_memory;
} en_arena;

/* a 32-byte digest (SHA-256, BLAKE2b) as 64 lowercase hex digits and a NUL */
EN_INTERNAL void en_digest_hex(const uint8_t digest[32], char hex[65]);

EN_INTERNAL void en_arena_init(en_arena *a);
EN_INTERNAL void en_arena_free(en_arena *a);
/* zeroed, aligned to 16 */
EN_INTERNAL void *en_alloc(en_arena *a, size_t size);
EN_INTERNAL char *en_strdup(en_arena *a, const char *s);
EN_INTERNAL char *en_strndup(en_arena *a, const char *s, size_t n);
EN_INTERNAL char *en_fmt(en_arena *a, const char *fmt, ...) EN_PRINTF(2, 3);
/* grows an arena array of `elem` bytes from *cap to at least need elements */
EN_INTERNAL void *en_grow(en_arena *a, void *items, size_t elem, int *cap, int need);

/* A growable array in an arena: `EN_PUSH(arena, vec, item)`. */
#define EN_VEC(T) struct { T *items; int count, cap; }
#define EN_PUSH(arena, vec, item)                                                          \
    do {                                                                                   \
        if ((vec).count == (vec).cap)                                                      \
            (vec).items = en_grow((arena), (vec).items, sizeof(*(vec).items), &(vec).cap,  \
                                  (vec).count + 1);                                        \
        if ((vec).count < (vec).cap) (vec).items[(vec).count++] = (item);                  \
    } while (0)

/* ---- string buffer (heap, for output text) -------------------------------------- */
typedef struct en_buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len, cap;
    bool out_of_memory;
} en_buf;

EN_INTERNAL void en_buf_free(en_buf *b);
EN_INTERNAL void en_buf_putn(en_buf *b, const char *s, size_t n);
EN_INTERNAL void en_buf_puts(en_buf *b, const char *s);
EN_INTERNAL void en_buf_putc(en_buf *b, char c);
EN_INTERNAL void en_buf_printf(en_buf *b, const char *fmt, ...) EN_PRINTF(2, 3);
EN_INTERNAL void en_buf_vprintf(en_buf *b, const char *fmt, va_list ap);
/* hands the text over to the caller (free() it); the buffer is left empty */
EN_INTERNAL char *en_buf_take(en_buf *b);

/* ---- source files and locations ------------------------------------------------- */
/* A location is (file, line, column), 1-based; file indexes en_sources. file < 0 means
 * "no location" (a built-in). Every token, AST node and IR node carries one. */
typedef struct en_loc {
    int32_t file;
    int32_t line;
    int32_t col;
} en_loc;

typedef struct en_source {
    const char *name; /* as the user named it, or "<builtin>" / "<command line>" */
    const char *text; /* NUL-terminated */
    size_t len;
} en_source;

typedef struct en_sources {
    en_arena *arena;
    EN_VEC(en_source) files;
} en_sources;

EN_INTERNAL int en_source_add(en_sources *s, const char *name, const char *text, size_t len);
/* reads a whole file into the arena; returns the file index or -1 (errno kept) */
EN_INTERNAL int en_source_load(en_sources *s, const char *path);
/* the text of line `line` of `file`, without its newline, and its length */
EN_INTERNAL const char *en_source_line(const en_sources *s, int file, int line, int *len);

/* ---- diagnostics ------------------------------------------------------------------
 * Collected in the compile context, never printed by the library. Rendering gives
 * "FILE:LINE:COL: error: message", the source line and a caret. */
typedef enum en_severity { EN_NOTE, EN_WARNING, EN_ERROR } en_severity;

typedef struct en_diag {
    en_severity severity;
    en_loc loc;
    const char *message; /* in the diagnostics' arena */
} en_diag;

typedef struct en_diags {
    en_arena *arena;
    const en_sources *sources;
    EN_VEC(en_diag) items;
    int errors, warnings;
    int max_errors; /* stop collecting after this many errors; 0 = 100 */
} en_diags;

EN_INTERNAL void en_error(en_diags *d, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
EN_INTERNAL void en_warning(en_diags *d, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
EN_INTERNAL void en_note(en_diags *d, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
EN_INTERNAL void en_diag_add(en_diags *d, en_severity sev, en_loc loc, const char *fmt,
                             va_list ap);
/* appends every diagnostic, rendered, to `out` */
EN_INTERNAL void en_diags_render(const en_diags *d, en_buf *out);
EN_INTERNAL void en_diag_render(const en_diags *d, const en_diag *g, en_buf *out);

/* ---- small helpers ---------------------------------------------------------------- */
EN_INTERNAL uint64_t en_hash64(const void *data, size_t n, uint64_t seed); /* FNV-1a */
EN_INTERNAL bool en_streq(const char *a, const char *b);

#endif
