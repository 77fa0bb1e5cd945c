/* lex.c — bytes to preprocessing tokens (C11 6.4, with C++'s `::` and Metal's literal
 * suffixes h/H and bf).
 *
 * Needs: a byte range that may hold anything (NULs, binary); a context for diagnostics.
 * Guarantees: every token carries the file:line:col where it starts; line splices
 * (backslash-newline) vanish from spellings; keywords stay identifiers; numbers are
 * classified and valued here, so a malformed literal is reported at its own column.
 * Every call makes progress, so any input ends in linear time. */
#include "lex.h"

#include <stdlib.h>
#include <string.h>

void en_lexer_init(en_lexer *L, en_ctx *c, int file, const char *text, size_t len) {
    memset(L, 0, sizeof *L);
    L->c = c;
    L->src = text ? text : "";
    L->len = text ? len : 0;
    L->line = 1;
    L->col = 1;
    L->loc_file = file;
    L->at_line_start = true;
}

en_loc en_lex_loc(const en_lexer *L) {
    int64_t line = L->line + L->line_offset;
    if (line > INT32_MAX) line = INT32_MAX;
    if (line < 1) line = 1;
    return (en_loc){L->loc_file, (int32_t)line, L->col};
}

static void lex_error(en_lexer *L, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
static void lex_error(en_lexer *L, en_loc loc, const char *fmt, ...) {
    L->errors++;
    if (L->quiet) return;
    va_list ap;
    va_start(ap, fmt);
    en_diag_add(&L->c->diags, EN_ERROR, loc, fmt, ap);
    va_end(ap);
}

/* ---- characters, with splices removed ---------------------------------------------- */

/* the position of the first byte at or after p that is not part of a splice */
static size_t past_splices(const en_lexer *L, size_t p) {
    while (p < L->len && L->src[p] == '\\') {
        if (p + 1 < L->len && L->src[p + 1] == '\n') p += 2;
        else if (p + 2 < L->len && L->src[p + 1] == '\r' && L->src[p + 2] == '\n') p += 3;
        else break;
    }
    return p;
}

/* the k-th character ahead (0 = current), or -1 past the end */
static int peek_at(const en_lexer *L, int k) {
    size_t p = L->pos;
    for (;;) {
        p = past_splices(L, p);
        if (p >= L->len) return -1;
        if (k-- == 0) return (unsigned char)L->src[p];
        p++;
    }
}

static int peek(const en_lexer *L) { return peek_at(L, 0); }

/* steps over splices at the current position, counting their lines */
static void eat_splices(en_lexer *L) {
    size_t p = past_splices(L, L->pos);
    if (p == L->pos) return;
    for (size_t i = L->pos; i < p; i++)
        if (L->src[i] == '\n') {
            L->line++;
            L->col = 1;
        }
    L->pos = p;
    L->spliced = true;
}

static void advance(en_lexer *L) {
    eat_splices(L);
    if (L->pos >= L->len) return;
    if (L->src[L->pos] == '\n') {
        L->line++;
        L->col = 1;
    } else {
        L->col++;
    }
    L->pos++;
}

static bool is_ident_start(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }
static bool is_hex(int c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int hex_value(int c) {
    return is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
}

/* ---- whitespace and comments ------------------------------------------------------- */

static void skip_space(en_lexer *L) {
    for (;;) {
        int c = peek(L);
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
            advance(L);
            L->has_space = true;
        } else if (c == '\n') {
            if (!L->at_line_start) L->break_line = L->line;
            advance(L);
            L->at_line_start = true;
            L->has_space = false;
        } else if (c == '/' && peek_at(L, 1) == '/') {
            while (peek(L) != '\n' && peek(L) != -1) advance(L);
            L->has_space = true;
        } else if (c == '/' && peek_at(L, 1) == '*') {
            en_loc start = en_lex_loc(L);
            advance(L);
            advance(L);
            for (;;) {
                int d = peek(L);
                if (d == -1) {
                    lex_error(L, start, "unterminated comment");
                    break;
                }
                advance(L);
                if (d == '*' && peek(L) == '/') {
                    advance(L);
                    break;
                }
            }
            L->has_space = true;
        } else {
            return;
        }
    }
}

bool en_lex_line_ends(en_lexer *L) {
    skip_space(L);
    return L->at_line_start || peek(L) == -1;
}

/* ---- numbers (C11 6.4.4.1, 6.4.4.2; Metal 2.1 for h and bf) --------------------------- */

/* u/U with l/L/ll/LL in either order */
static bool int_suffix(const char *s, int *suffix) {
    int flags = 0;
    while (*s) {
        if ((*s == 'u' || *s == 'U') && !(flags & EN_LIT_U)) {
            flags |= EN_LIT_U;
            s++;
        } else if ((*s == 'l' || *s == 'L') && !(flags & EN_LIT_L)) {
            flags |= EN_LIT_L;
            if (s[1] == s[0]) s++; /* ll or LL, never lL */
            s++;
        } else {
            return false;
        }
    }
    *suffix = flags;
    return true;
}

static bool float_suffix(const char *s, int *suffix) {
    if (!*s) *suffix = EN_LIT_NONE;
    else if (en_streq(s, "f") || en_streq(s, "F")) *suffix = EN_LIT_F;
    else if (en_streq(s, "h") || en_streq(s, "H")) *suffix = EN_LIT_H;
    else if (en_streq(s, "bf") || en_streq(s, "BF")) *suffix = EN_LIT_BF;
    else return false;
    return true;
}

/* Classifies and values the pp-number in t->text; reports what is malformed. */
static void number_value(en_lexer *L, en_token *t) {
    const char *s = t->text, *p;
    if (strchr(s, '\'')) { /* digit separators carry no value */
        char *plain = en_strdup(&L->c->arena, s);
        if (L->c->arena.out_of_memory) return;
        size_t k = 0;
        for (const char *q = s; *q; q++)
            if (*q != '\'') plain[k++] = *q;
        plain[k] = 0;
        s = plain;
    }
    p = s;
    int base = 10;
    bool is_float = false;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        const char *q = p;
        while (is_hex(*q) || *q == '.') q++;
        if (memchr(p, '.', (size_t)(q - p)) || *q == 'p' || *q == 'P') is_float = true;
    } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        base = 2;
        p += 2;
    } else {
        const char *q = p;
        while (is_digit(*q)) q++;
        if (*q == '.' || *q == 'e' || *q == 'E') is_float = true;
    }

    if (is_float) {
        t->kind = EN_TK_FLOAT;
        const char *q = p;
        int digits = 0;
        bool (*digit_ok)(int) = base == 16 ? is_hex : is_digit;
        while (digit_ok(*q)) q++, digits++;
        if (*q == '.') {
            q++;
            while (digit_ok(*q)) q++, digits++;
        }
        if (!digits) {
            lex_error(L, t->loc, "invalid floating constant '%s'", s);
            return;
        }
        int exp_char = base == 16 ? 'p' : 'e';
        if (*q == exp_char || *q == exp_char - 32) {
            q++;
            if (*q == '+' || *q == '-') q++;
            if (!is_digit(*q)) {
                lex_error(L, t->loc, "exponent has no digits in '%s'", s);
                return;
            }
            while (is_digit(*q)) q++;
        } else if (base == 16) {
            lex_error(L, t->loc, "hexadecimal floating constant '%s' requires an exponent", s);
            return;
        }
        if (!float_suffix(q, &t->lit_suffix)) {
            lex_error(L, t->loc, "invalid suffix '%s' on floating constant", q);
            return;
        }
        char *body = en_strndup(&L->c->arena, s, (size_t)(q - s));
        t->fval = strtod(body, NULL);
        return;
    }

    t->kind = EN_TK_INT;
    if (base == 10 && p[0] == '0') base = 8;
    const char *q = p;
    uint64_t v = 0;
    bool overflow = false;
    int digits = 0;
    while (is_hex(*q) && !(base != 16 && (*q == 'b' || *q == 'B' || *q == 'e' || *q == 'E' ||
                                           *q == 'f' || *q == 'F' || *q == 'd' || *q == 'D' ||
                                           *q == 'a' || *q == 'A' || *q == 'c' || *q == 'C'))) {
        int d = hex_value(*q);
        if (d >= base) {
            lex_error(L, t->loc, "invalid digit '%c' in %s constant", *q,
                      base == 8 ? "octal" : "binary");
            return;
        }
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = true;
        v = v * (uint64_t)base + (uint64_t)d;
        q++;
        digits++;
    }
    if (!digits && base != 8) {
        lex_error(L, t->loc, "invalid %s constant '%s'", base == 16 ? "hexadecimal" : "binary",
                  s);
        return;
    }
    if (!int_suffix(q, &t->lit_suffix)) {
        lex_error(L, t->loc, "invalid suffix '%s' on integer constant", q);
        return;
    }
    if (overflow) {
        lex_error(L, t->loc, "integer constant '%s' is too large for any integer type", s);
        return;
    }
    t->ival = v;
}

/* ---- character and string literals (C11 6.4.4.4, 6.4.5) ------------------------------- */

/* one character of a literal body, escapes decoded; the cursor is past it */
static uint64_t literal_char(en_lexer *L) {
    int c = peek(L);
    advance(L);
    if (c != '\\') return (unsigned char)c;
    en_loc at = en_lex_loc(L);
    int e = peek(L);
    if (e == -1 || e == '\n') return '\\';
    advance(L);
    switch (e) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'v': return '\v';
    case 'x': {
        uint64_t v = 0;
        int n = 0;
        while (is_hex(peek(L))) {
            v = (v << 4) | (uint64_t)hex_value(peek(L));
            advance(L);
            n++;
        }
        if (!n) lex_error(L, at, "\\x used with no following hex digits");
        return v & 0xffffffffu;
    }
    default:
        if (e >= '0' && e <= '7') {
            uint64_t v = (uint64_t)(e - '0');
            for (int n = 1; n < 3 && peek(L) >= '0' && peek(L) <= '7'; n++) {
                v = v * 8 + (uint64_t)(peek(L) - '0');
                advance(L);
            }
            return v;
        }
        return (unsigned char)e; /* \\ \' \" \? and unknown escapes keep the character */
    }
}

static void quoted_literal(en_lexer *L, en_token *t, int quote) {
    advance(L); /* the opening quote */
    uint64_t value = 0;
    int count = 0;
    for (;;) {
        int c = peek(L);
        if (c == -1 || c == '\n') {
            lex_error(L, t->loc, "unterminated %s literal", quote == '"' ? "string" : "character");
            t->kind = EN_TK_EOF; /* dropped by the caller */
            return;
        }
        if (c == quote) {
            advance(L);
            break;
        }
        uint64_t ch = literal_char(L);
        value = (value << 8) | (ch & 0xff);
        if (count == 0) value = ch;
        count++;
    }
    if (quote == '\'') {
        if (count == 0) lex_error(L, t->loc, "empty character literal");
        t->ival = value;
    }
}

/* ---- punctuators (C11 6.4.6, plus C++'s ::), longest match first ----------------------- */

static const char *const punct3[] = {"...", "<<=", ">>="};
static const char *const punct2[] = {"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                     "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
                                     "::"};
static const char punct1[] = "[](){}.&*+-~!/%<>^|?:;=,#";

static int punct_length(const en_lexer *L) {
    int c0 = peek_at(L, 0), c1 = peek_at(L, 1), c2 = peek_at(L, 2);
    for (size_t i = 0; i < EN_COUNT(punct3); i++)
        if (c0 == punct3[i][0] && c1 == punct3[i][1] && c2 == punct3[i][2]) return 3;
    for (size_t i = 0; i < EN_COUNT(punct2); i++)
        if (c0 == punct2[i][0] && c1 == punct2[i][1]) return 2;
    if (c0 > 0 && strchr(punct1, c0)) return 1;
    return 0;
}

/* ---- tokens -------------------------------------------------------------------------- */

/* the spelling from byte `start` to the cursor, splices removed */
static void set_text(en_lexer *L, en_token *t, size_t start) {
    size_t n = L->pos - start;
    if (!L->spliced) {
        t->text = en_strndup(&L->c->arena, L->src + start, n);
        t->len = (int)n;
        return;
    }
    char *out = en_alloc(&L->c->arena, n + 1);
    if (L->c->arena.out_of_memory) {
        t->text = "";
        return;
    }
    size_t k = 0;
    for (size_t p = start; p < L->pos;) {
        size_t q = past_splices(L, p);
        if (q != p) {
            p = q;
            continue;
        }
        out[k++] = L->src[p++];
    }
    out[k] = 0;
    t->text = out;
    t->len = (int)k;
}

static bool is_encoding_prefix(const en_token *t) {
    return en_streq(t->text, "L") || en_streq(t->text, "u") || en_streq(t->text, "U") ||
           en_streq(t->text, "u8");
}

en_token en_lex_next(en_lexer *L) {
    for (;;) {
        skip_space(L);
        eat_splices(L);
        en_token t = {.loc = en_lex_loc(L), .at_line_start = L->at_line_start,
                      .has_space = L->has_space};
        size_t start = L->pos;
        L->spliced = false;
        int c = peek(L);
        if (c == -1) {
            t.kind = EN_TK_EOF;
            t.text = "";
            return t;
        }
        if (is_ident_start(c)) {
            while (is_ident_char(peek(L))) advance(L);
            t.kind = EN_TK_IDENT;
            set_text(L, &t, start);
            int q = peek(L);
            if ((q == '"' || q == '\'') && is_encoding_prefix(&t)) {
                t.kind = q == '"' ? EN_TK_STRING : EN_TK_CHAR;
                quoted_literal(L, &t, q);
                if (t.kind == EN_TK_EOF) continue;
                set_text(L, &t, start);
            }
        } else if (is_digit(c) || (c == '.' && is_digit(peek_at(L, 1)))) {
            /* a pp-number (C11 6.4.8): digits, letters, dots, and signs after e/p; C++14
             * digit separators (1'000) too, since MSL is C++14 */
            for (;;) {
                int d = peek(L);
                if (((d == 'e' || d == 'E' || d == 'p' || d == 'P') &&
                     (peek_at(L, 1) == '+' || peek_at(L, 1) == '-')) ||
                    (d == '\'' && is_ident_char(peek_at(L, 1)))) {
                    advance(L);
                    advance(L);
                } else if (is_ident_char(d) || d == '.') {
                    advance(L);
                } else {
                    break;
                }
            }
            set_text(L, &t, start);
            number_value(L, &t);
        } else if (c == '"' || c == '\'') {
            t.kind = c == '"' ? EN_TK_STRING : EN_TK_CHAR;
            quoted_literal(L, &t, c);
            if (t.kind == EN_TK_EOF) continue;
            set_text(L, &t, start);
        } else {
            int n = punct_length(L);
            if (!n) {
                advance(L);
                if (c >= 0x21 && c < 0x7f)
                    lex_error(L, t.loc, "invalid character '%c' in source", c);
                else
                    lex_error(L, t.loc, "invalid character '\\x%02x' in source", c);
                L->has_space = true;
                continue;
            }
            for (int i = 0; i < n; i++) advance(L);
            t.kind = EN_TK_PUNCT;
            set_text(L, &t, start);
        }
        L->at_line_start = false;
        L->has_space = false;
        return t;
    }
}
