/* pp.c — the preprocessor (C11 6.10): directives, conditional groups, includes and macro
 * expansion, over tokens the lexer (lex.c) makes on demand.
 *
 * Needs: the source files in c->sources; c->include_dirs and c->defines.
 * Guarantees: en_preprocess returns every token the parser must see, ending with
 * EN_TK_EOF; macro expansions carry the location of the macro's use; `#pragma unroll`
 * reaches the parser as EN_TK_PRAGMA; the Metal system headers read metal_headers.c's text
 * (their functions and types are built into the checker).
 *
 * Hostile input cannot hang or exhaust it: macro expansion keeps no recursion of its own
 * (a stack of expansion contexts, each macro disabled while its context is open, as GCC's
 * cpplib does), argument pre-expansion and #if expressions have depth limits, and every
 * token an expansion makes counts against one budget per compile. */
#include "pp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The fuzz build (fuzz/run.sh) sets a smaller floor: the same budget and error, reached 16x
 * sooner, so that a few lines of doubling macros stay well inside libFuzzer's 1-second
 * limit under its sanitizers and coverage (at the full floor they took 0.4-0.9 s there,
 * and a loaded machine pushed them over). */
#ifndef EN_PP_EXPANSION_FLOOR
#define EN_PP_EXPANSION_FLOOR (1 << 20)
#endif

enum {
    MAX_INCLUDE_DEPTH = 200,
    MAX_INCLUDES = 4096,          /* #include directives per compile */
    MAX_ARG_DEPTH = 100,          /* macro arguments expanded inside macro arguments */
    MAX_EXPR_DEPTH = 128,         /* nesting in #if expressions */
    /* Tokens all macro expansions of a compile may make: a floor, plus a share that grows
     * with the source read, so that a large library is never refused for its size while a
     * few lines of doubling macros are still stopped within a second. MLX's largest files
     * (reduce.metal with its headers: 0.8 MB, 341,000 expansion tokens) stay far below it. */
    EXPANSION_BUDGET_FLOOR = EN_PP_EXPANSION_FLOOR,
    EXPANSION_TOKENS_PER_SOURCE_BYTE = 16,
    MACRO_BUCKETS = 1024,
};

typedef EN_VEC(en_token) tok_vec;

typedef enum { MACRO_USER, MACRO_LINE, MACRO_FILE } macro_kind;

typedef struct macro {
    const char *name;
    macro_kind kind;
    bool funclike, variadic;
    int nparams;              /* a variadic macro's last parameter is __VA_ARGS__ */
    const char **params;
    en_token *body;
    int *body_param;          /* per body token: the parameter it names, or -1 */
    int nbody;
    int active;               /* open expansion contexts of this macro */
    en_loc loc;
    struct macro *next;
} macro;

typedef struct cond {
    en_loc loc;
    const char *directive;    /* "#if", "#ifdef", "#ifndef", for the unterminated error */
    bool taken;               /* some group of this conditional was taken */
    bool seen_else;
} cond;

typedef struct frame {
    en_lexer L;
    int file;
    const char *dir;          /* directory for #include "...", "" for the current one */
    const char *canonical;    /* real path, for #pragma once; NULL when unknown */
    EN_VEC(cond) conds;
    en_token peeked;
    bool has_peeked;
    struct frame *parent;
} frame;

/* tokens being read out of one macro expansion */
typedef struct context {
    en_token *toks;
    int count, pos;
    macro *m;
} context;

/* reads expanded tokens from the file stack or from an array (a macro argument, a
 * directive line) */
typedef struct expander {
    EN_VEC(context) ctxs;
    bool from_file;
    bool in_args;             /* collecting macro arguments: a file's end is not popped */
    const en_token *arr;
    int arr_count, arr_pos;
} expander;

typedef struct pp {
    en_ctx *c;
    macro **buckets;
    frame *top;
    int depth, includes;
    EN_VEC(const char *) once;
    long budget_used;
    long source_bytes; /* of every file pushed so far: the budget grows with it */
    bool budget_exceeded, arg_depth_reported;
    int arg_depth;
    int builtin_file;         /* the source "<builtin>": no notes point into it */
    en_token eof;
} pp;

/* ---- small helpers ----------------------------------------------------------------- */

static bool is_punct(const en_token *t, const char *s) {
    return t->kind == EN_TK_PUNCT && strcmp(t->text, s) == 0;
}
static bool is_ident(const en_token *t, const char *s) {
    return t->kind == EN_TK_IDENT && strcmp(t->text, s) == 0;
}

static en_token make_token(pp *p, en_token_kind kind, const char *text, en_loc loc) {
    en_token t = {.kind = kind, .text = en_strdup(&p->c->arena, text), .loc = loc};
    t.len = (int)strlen(t.text);
    return t;
}

static en_token make_int(pp *p, uint64_t v, en_loc loc) {
    en_token t = make_token(p, EN_TK_INT, v ? "1" : "0", loc);
    t.ival = v;
    return t;
}

/* Counts n tokens of expansion work (tokens copied into contexts, arguments and
 * expanded arguments) against the budget; false once it is spent, after one error. */
static bool spend(pp *p, long n, en_loc loc) {
    p->budget_used += n;
    long budget = EXPANSION_BUDGET_FLOOR + EXPANSION_TOKENS_PER_SOURCE_BYTE * p->source_bytes;
    if (p->budget_used <= budget || p->budget_exceeded) return !p->budget_exceeded;
    en_error(&p->c->diags, loc,
             "macro expansion is too large (more than %ld tokens, %d per byte of source read "
             "beyond %d)", budget, EXPANSION_TOKENS_PER_SOURCE_BYTE, EXPANSION_BUDGET_FLOOR);
    p->budget_exceeded = true;
    return false;
}

/* the spellings of toks joined, one space where the source had space */
static const char *spell_tokens(pp *p, const en_token *toks, int n) {
    en_buf b = {0};
    for (int i = 0; i < n; i++) {
        if (i > 0 && (toks[i].has_space || toks[i].at_line_start)) en_buf_putc(&b, ' ');
        en_buf_puts(&b, toks[i].text);
    }
    const char *s = en_strdup(&p->c->arena, b.data ? b.data : "");
    en_buf_free(&b);
    return s;
}

/* ---- the macro table --------------------------------------------------------------- */

static macro **macro_slot(pp *p, const char *name) {
    uint64_t h = en_hash64(name, strlen(name), 0);
    macro **slot = &p->buckets[h % MACRO_BUCKETS];
    while (*slot && strcmp((*slot)->name, name) != 0) slot = &(*slot)->next;
    return slot;
}

static macro *macro_find(pp *p, const char *name) { return *macro_slot(p, name); }

static void macro_remove(pp *p, const char *name) {
    macro **slot = macro_slot(p, name);
    if (*slot) *slot = (*slot)->next;
}

static void macro_put(pp *p, macro *m) {
    macro **slot = macro_slot(p, m->name);
    if (*slot) m->next = (*slot)->next;
    *slot = m;
}

/* ---- the file stack ---------------------------------------------------------------- */

static const char *dir_of(pp *p, const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? en_strndup(&p->c->arena, path, (size_t)(slash - path) + 1) : "";
}

static const char *canonical_path(pp *p, const char *path) {
    char *real = realpath(path, NULL);
    if (!real) return NULL;
    const char *s = en_strdup(&p->c->arena, real);
    free(real);
    return s;
}

static void push_frame(pp *p, int file, const char *canonical) {
    frame *f = en_alloc(&p->c->arena, sizeof *f);
    if (p->c->arena.out_of_memory) return;
    const en_source *src = &p->c->sources.files.items[file];
    en_lexer_init(&f->L, p->c, file, src->text, src->len);
    if (src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0) f->L.pos = 3; /* a UTF-8 BOM */
    f->file = file;
    /* the user's files: not <builtin> (no canonical name) nor <metal_stdlib> */
    if (canonical && canonical[0] != '<') p->source_bytes += (long)src->len;
    f->dir = dir_of(p, src->name);
    f->canonical = canonical;
    f->parent = p->top;
    p->top = f;
    p->depth++;
}

static void pop_frame(pp *p) {
    frame *f = p->top;
    for (int i = f->conds.count - 1; i >= 0; i--)
        en_error(&p->c->diags, f->conds.items[i].loc, "unterminated %s",
                 f->conds.items[i].directive);
    p->top = f->parent;
    p->depth--;
}

/* ---- directive lines --------------------------------------------------------------- */

/* the rest of the directive line */
static tok_vec read_line(pp *p, frame *f) {
    tok_vec v = {0};
    while (!en_lex_line_ends(&f->L)) {
        en_token t = en_lex_next(&f->L);
        if (t.kind == EN_TK_EOF) break;
        EN_PUSH(&p->c->arena, v, t);
    }
    return v;
}

static void skip_line(frame *f) {
    while (!en_lex_line_ends(&f->L))
        if (en_lex_next(&f->L).kind == EN_TK_EOF) break;
}

static void extra_tokens(pp *p, frame *f, const char *directive) {
    tok_vec rest = read_line(p, f);
    if (rest.count)
        en_warning(&p->c->diags, rest.items[0].loc, "extra tokens at end of #%s directive",
                   directive);
}

static en_token expand_next(pp *p, expander *E);
static tok_vec expand_array(pp *p, const en_token *toks, int n);

/* ---- #define and #undef (C11 6.10.3) ----------------------------------------------- */

static bool same_definition(const macro *a, const macro *b) {
    if (a->kind != b->kind || a->funclike != b->funclike || a->variadic != b->variadic ||
        a->nparams != b->nparams || a->nbody != b->nbody)
        return false;
    for (int i = 0; i < a->nparams; i++)
        if (strcmp(a->params[i], b->params[i]) != 0) return false;
    for (int i = 0; i < a->nbody; i++) {
        if (strcmp(a->body[i].text, b->body[i].text) != 0) return false;
        if (i > 0 && a->body[i].has_space != b->body[i].has_space) return false;
    }
    return true;
}

static bool valid_macro_name(pp *p, const en_token *name, en_loc directive_loc) {
    if (!name) {
        en_error(&p->c->diags, directive_loc, "macro name missing");
        return false;
    }
    if (name->kind != EN_TK_IDENT) {
        en_error(&p->c->diags, name->loc, "macro name must be an identifier");
        return false;
    }
    if (en_streq(name->text, "defined")) {
        en_error(&p->c->diags, name->loc, "'defined' cannot be used as a macro name");
        return false;
    }
    return true;
}

/* parameter list after `(`, from toks[*i]; false after reporting an error */
static bool parse_params(pp *p, macro *m, const tok_vec *line, int *i, en_loc open) {
    EN_VEC(const char *) params = {0};
    const en_token *t = line->items;
    int n = line->count;
    if (*i < n && is_punct(&t[*i], ")")) {
        (*i)++;
        return true;
    }
    for (;;) {
        if (*i >= n) {
            en_error(&p->c->diags, open, "missing ')' in macro parameter list");
            return false;
        }
        if (is_punct(&t[*i], "...")) {
            m->variadic = true;
            EN_PUSH(&p->c->arena, params, "__VA_ARGS__");
            (*i)++;
            if (*i >= n || !is_punct(&t[*i], ")")) {
                en_error(&p->c->diags, *i < n ? t[*i].loc : t[*i - 1].loc,
                         "missing ')' after '...' in macro parameter list");
                return false;
            }
            (*i)++;
            break;
        }
        if (t[*i].kind != EN_TK_IDENT) {
            en_error(&p->c->diags, t[*i].loc, "expected a macro parameter name, found '%s'",
                     t[*i].text);
            return false;
        }
        if (en_streq(t[*i].text, "__VA_ARGS__")) {
            en_error(&p->c->diags, t[*i].loc,
                     "__VA_ARGS__ can only appear in the expansion of a variadic macro");
            return false;
        }
        for (int k = 0; k < params.count; k++)
            if (strcmp(params.items[k], t[*i].text) == 0) {
                en_error(&p->c->diags, t[*i].loc, "duplicate macro parameter '%s'", t[*i].text);
                return false;
            }
        EN_PUSH(&p->c->arena, params, t[*i].text);
        (*i)++;
        if (*i < n && is_punct(&t[*i], ")")) {
            (*i)++;
            break;
        }
        if (*i < n && is_punct(&t[*i], ",")) {
            (*i)++;
            continue;
        }
        if (*i >= n) continue; /* reported as a missing ')' */
        en_error(&p->c->diags, t[*i].loc, "expected ',' or ')' in macro parameter list, found '%s'",
                 t[*i].text);
        return false;
    }
    m->params = params.items;
    m->nparams = params.count;
    return true;
}

static void do_define(pp *p, frame *f, en_loc directive_loc) {
    tok_vec line = read_line(p, f);
    const en_token *t = line.items;
    if (!valid_macro_name(p, line.count ? &t[0] : NULL, directive_loc)) return;
    macro *m = en_alloc(&p->c->arena, sizeof *m);
    if (p->c->arena.out_of_memory) return;
    m->name = t[0].text;
    m->loc = t[0].loc;
    int i = 1;
    if (i < line.count && is_punct(&t[i], "(") && !t[i].has_space) {
        m->funclike = true;
        en_loc open = t[i].loc;
        i++;
        if (!parse_params(p, m, &line, &i, open)) return;
    }
    m->body = line.items + i;
    m->nbody = line.count - i;
    m->body_param = en_alloc(&p->c->arena, sizeof(int) * (size_t)(m->nbody + 1));
    if (p->c->arena.out_of_memory) return;
    for (int k = 0; k < m->nbody; k++) {
        en_token *b = &m->body[k];
        m->body_param[k] = -1;
        b->at_line_start = false;
        if (b->kind == EN_TK_IDENT) {
            for (int q = 0; q < m->nparams; q++)
                if (strcmp(m->params[q], b->text) == 0) m->body_param[k] = q;
            if (m->body_param[k] < 0 && en_streq(b->text, "__VA_ARGS__"))
                en_warning(&p->c->diags, b->loc,
                           "__VA_ARGS__ can only appear in the expansion of a variadic macro");
        }
    }
    if (m->nbody > 0) m->body[0].has_space = false;
    /* C11 6.10.3.2p1 and 6.10.3.3p1 */
    for (int k = 0; k < m->nbody; k++) {
        const en_token *b = &m->body[k];
        if (m->body_param[k] >= 0) continue;
        if (is_punct(b, "##") && (k == 0 || k == m->nbody - 1)) {
            en_error(&p->c->diags, b->loc, "'##' cannot appear at either end of a macro expansion");
            return;
        }
        if (m->funclike && is_punct(b, "#") && (k + 1 >= m->nbody || m->body_param[k + 1] < 0)) {
            en_error(&p->c->diags, b->loc, "'#' is not followed by a macro parameter");
            return;
        }
    }
    macro *old = macro_find(p, m->name);
    if (old && !same_definition(old, m)) {
        en_warning(&p->c->diags, m->loc, "'%s' macro redefined", m->name);
        if (old->loc.file >= 0 && old->loc.file != p->builtin_file)
            en_note(&p->c->diags, old->loc, "previous definition is here");
    }
    macro_put(p, m);
}

static void do_undef(pp *p, frame *f, en_loc directive_loc) {
    tok_vec line = read_line(p, f);
    if (!valid_macro_name(p, line.count ? &line.items[0] : NULL, directive_loc)) return;
    macro_remove(p, line.items[0].text);
    if (line.count > 1)
        en_warning(&p->c->diags, line.items[1].loc, "extra tokens at end of #undef directive");
}

/* ---- #if expressions (C11 6.10.1) --------------------------------------------------- */

typedef struct ppval {
    uint64_t v;
    bool is_unsigned;
} ppval;

typedef struct evaluator {
    pp *p;
    const en_token *t;
    int n, i, depth;
    int skip;       /* >0 inside an operand that is not evaluated (0 && x) */
    bool failed;    /* a syntax error was reported; the rest is not */
    en_loc end;     /* where the line ends, for "expected X" at the end */
} evaluator;

static const en_token *ev_peek(evaluator *e) { return e->i < e->n ? &e->t[e->i] : NULL; }

static bool ev_accept(evaluator *e, const char *s) {
    const en_token *t = ev_peek(e);
    if (t && is_punct(t, s)) {
        e->i++;
        return true;
    }
    return false;
}

static void ev_fail(evaluator *e, const en_token *t, const char *fmt, const char *arg) {
    if (!e->failed) en_error(&e->p->c->diags, t ? t->loc : e->end, fmt, arg);
    e->failed = true;
}

static ppval ev_ternary(evaluator *e);

/* primary: integer or character constant, identifier (0; true is 1), ( expression ) */
static ppval ev_unary(evaluator *e) {
    const en_token *t = ev_peek(e);
    ppval r = {0, false};
    if (e->failed) return r;
    if (!t) {
        ev_fail(e, NULL, "expected a value in preprocessor expression%s", "");
        return r;
    }
    if (++e->depth > MAX_EXPR_DEPTH) {
        ev_fail(e, t, "preprocessor expression is nested too deeply%s", "");
        return r;
    }
    e->i++;
    if (t->kind == EN_TK_INT) {
        r.v = t->ival;
        r.is_unsigned = (t->lit_suffix & EN_LIT_U) || t->ival > (uint64_t)INT64_MAX;
    } else if (t->kind == EN_TK_CHAR) {
        r.v = t->ival;
    } else if (t->kind == EN_TK_IDENT) {
        r.v = en_streq(t->text, "true");
    } else if (is_punct(t, "(")) {
        r = ev_ternary(e);
        if (!e->failed && !ev_accept(e, ")"))
            ev_fail(e, ev_peek(e), "expected ')' in preprocessor expression%s", "");
    } else if (is_punct(t, "+")) {
        r = ev_unary(e);
    } else if (is_punct(t, "-")) {
        r = ev_unary(e);
        r.v = (uint64_t)0 - r.v;
    } else if (is_punct(t, "~")) {
        r = ev_unary(e);
        r.v = ~r.v;
    } else if (is_punct(t, "!")) {
        r = ev_unary(e);
        r.v = !r.v;
        r.is_unsigned = false;
    } else if (t->kind == EN_TK_FLOAT) {
        ev_fail(e, t, "floating constant '%s' in preprocessor expression", t->text);
    } else {
        ev_fail(e, t, "invalid token '%s' in preprocessor expression", t->text);
    }
    e->depth--;
    return r;
}

/* binary operators by precedence, loosest first (C11 6.5.5 - 6.5.14) */
static const char *const binary_levels[][4] = {
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
};

static ppval ev_apply(evaluator *e, const en_token *op, ppval a, ppval b) {
    const char *o = op->text;
    bool u = a.is_unsigned || b.is_unsigned;
    int64_t sa = (int64_t)a.v, sb = (int64_t)b.v;
    ppval r = {0, u};
    if (!strcmp(o, "*")) r.v = a.v * b.v;
    else if (!strcmp(o, "/") || !strcmp(o, "%")) {
        if (b.v == 0) { /* an error only where the operand is evaluated: 0 && 1 / 0 is fine */
            if (!e->skip) {
                if (!e->failed)
                    en_error(&e->p->c->diags, op->loc, "division by zero in preprocessor expression");
                e->failed = true;
            }
            return r;
        }
        bool div = o[0] == '/';
        if (u) r.v = div ? a.v / b.v : a.v % b.v;
        else if (sa == INT64_MIN && sb == -1) r.v = div ? a.v : 0; /* wraps, never traps */
        else r.v = (uint64_t)(div ? sa / sb : sa % sb);
    } else if (!strcmp(o, "+")) r.v = a.v + b.v;
    else if (!strcmp(o, "-")) r.v = a.v - b.v;
    else if (!strcmp(o, "<<") || !strcmp(o, ">>")) {
        r.is_unsigned = a.is_unsigned;
        bool left = o[0] == '<';
        if (!b.is_unsigned && sb < 0) r.v = 0;
        else if (b.v >= 64) r.v = (!left && !a.is_unsigned && sa < 0) ? (uint64_t)-1 : 0;
        else if (left) r.v = a.v << b.v;
        else r.v = a.is_unsigned ? a.v >> b.v : (uint64_t)(sa >> b.v);
    } else {
        r.is_unsigned = false;
        if (!strcmp(o, "<")) r.v = u ? a.v < b.v : sa < sb;
        else if (!strcmp(o, ">")) r.v = u ? a.v > b.v : sa > sb;
        else if (!strcmp(o, "<=")) r.v = u ? a.v <= b.v : sa <= sb;
        else if (!strcmp(o, ">=")) r.v = u ? a.v >= b.v : sa >= sb;
        else if (!strcmp(o, "==")) r.v = a.v == b.v;
        else if (!strcmp(o, "!=")) r.v = a.v != b.v;
        else {
            r.is_unsigned = u;
            if (!strcmp(o, "&")) r.v = a.v & b.v;
            else if (!strcmp(o, "|")) r.v = a.v | b.v;
            else if (!strcmp(o, "^")) r.v = a.v ^ b.v;
        }
    }
    return r;
}

static const en_token *ev_binary_op(evaluator *e, int level) {
    const en_token *t = ev_peek(e);
    if (!t || t->kind != EN_TK_PUNCT) return NULL;
    for (int k = 0; k < 4 && binary_levels[level][k]; k++)
        if (strcmp(t->text, binary_levels[level][k]) == 0) return t;
    return NULL;
}

static ppval ev_binary(evaluator *e, int level) {
    if (level == (int)EN_COUNT(binary_levels)) return ev_unary(e);
    ppval a = ev_binary(e, level + 1);
    const en_token *op;
    while (!e->failed && (op = ev_binary_op(e, level))) {
        e->i++;
        if (level <= 1) { /* || and && do not evaluate what cannot matter */
            bool decided = level == 0 ? a.v != 0 : a.v == 0;
            if (decided) e->skip++;
            ppval b = ev_binary(e, level + 1);
            if (decided) e->skip--;
            a.v = level == 0 ? (a.v || b.v) : (a.v && b.v);
            a.is_unsigned = false;
        } else {
            ppval b = ev_binary(e, level + 1);
            if (e->failed) break;
            a = ev_apply(e, op, a, b);
        }
    }
    return a;
}

/* conditional-expression: logical-OR-expression ? expression : conditional-expression */
static ppval ev_ternary(evaluator *e) {
    ppval c = ev_binary(e, 0);
    if (e->failed || !ev_accept(e, "?")) return c;
    if (++e->depth > MAX_EXPR_DEPTH) {
        ev_fail(e, ev_peek(e), "preprocessor expression is nested too deeply%s", "");
        return c;
    }
    if (!c.v) e->skip++;
    ppval a = ev_ternary(e);
    if (!c.v) e->skip--;
    if (!e->failed && !ev_accept(e, ":"))
        ev_fail(e, ev_peek(e), "expected ':' in preprocessor expression%s", "");
    if (c.v) e->skip++;
    ppval b = ev_ternary(e);
    if (c.v) e->skip--;
    e->depth--;
    ppval r = c.v ? a : b;
    r.is_unsigned = a.is_unsigned || b.is_unsigned;
    return r;
}

/* replaces `defined X` and `defined ( X )` by 1 or 0 */
static tok_vec replace_defined(pp *p, const en_token *t, int n) {
    tok_vec out = {0};
    for (int i = 0; i < n; i++) {
        if (!is_ident(&t[i], "defined")) {
            EN_PUSH(&p->c->arena, out, t[i]);
            continue;
        }
        int k = i + 1;
        bool paren = k < n && is_punct(&t[k], "(");
        if (paren) k++;
        if (k >= n || t[k].kind != EN_TK_IDENT) {
            en_error(&p->c->diags, k < n ? t[k].loc : t[i].loc,
                     "macro name missing after 'defined'");
            EN_PUSH(&p->c->arena, out, make_int(p, 0, t[i].loc));
            i = n;
            break;
        }
        bool found = macro_find(p, t[k].text) != NULL;
        if (paren) {
            if (k + 1 >= n || !is_punct(&t[k + 1], ")")) {
                en_error(&p->c->diags, t[k].loc, "missing ')' after 'defined'");
                EN_PUSH(&p->c->arena, out, make_int(p, 0, t[i].loc));
                break;
            }
            k++;
        }
        EN_PUSH(&p->c->arena, out, make_int(p, found, t[i].loc));
        i = k;
    }
    return out;
}

static bool eval_condition(pp *p, frame *f, en_loc directive_loc, const char *directive) {
    tok_vec line = read_line(p, f);
    if (!line.count) {
        en_error(&p->c->diags, directive_loc, "#%s with no expression", directive);
        return false;
    }
    int errors = p->c->diags.errors;
    tok_vec step = replace_defined(p, line.items, line.count);
    tok_vec expanded = expand_array(p, step.items, step.count);
    step = replace_defined(p, expanded.items, expanded.count);
    if (p->c->diags.errors != errors) return false;
    const en_token *last = &line.items[line.count - 1];
    evaluator e = {.p = p, .t = step.items, .n = step.count,
                   .end = {last->loc.file, last->loc.line, last->loc.col + last->len}};
    ppval v = ev_ternary(&e);
    if (!e.failed && e.i < e.n)
        ev_fail(&e, &e.t[e.i], "missing binary operator before '%s' in preprocessor expression",
                e.t[e.i].text);
    return !e.failed && v.v != 0;
}

/* ---- conditional groups (C11 6.10.1) ------------------------------------------------ */

/* Skips lines of a group not taken, up to the #elif/#else that is taken or the #endif
 * that closes the innermost open conditional. Tokens are lexed quietly: text in a
 * skipped group need not be valid. */
static void skip_group(pp *p, frame *f) {
    int depth = 0;
    for (;;) {
        f->L.quiet = true;
        en_token t = en_lex_next(&f->L);
        if (t.kind == EN_TK_EOF || p->c->arena.out_of_memory) break;
        if (!t.at_line_start || !is_punct(&t, "#") || en_lex_line_ends(&f->L)) continue;
        en_token name = en_lex_next(&f->L);
        const char *d = name.kind == EN_TK_IDENT ? name.text : "";
        if (!strcmp(d, "if") || !strcmp(d, "ifdef") || !strcmp(d, "ifndef")) {
            depth++;
        } else if (depth > 0) {
            if (!strcmp(d, "endif")) depth--;
        } else if (!strcmp(d, "endif")) {
            f->conds.count--;
            f->L.quiet = false;
            extra_tokens(p, f, "endif");
            return;
        } else if (!strcmp(d, "else") || !strcmp(d, "elif")) {
            cond *cd = &f->conds.items[f->conds.count - 1];
            f->L.quiet = false;
            if (cd->seen_else) {
                en_error(&p->c->diags, name.loc, "#%s after #else", d);
                skip_line(f);
                continue;
            }
            if (d[2] == 's') {
                cd->seen_else = true;
                extra_tokens(p, f, "else");
                if (!cd->taken) {
                    cd->taken = true;
                    return;
                }
                continue;
            }
            if (cd->taken) {
                skip_line(f);
                continue;
            }
            if (eval_condition(p, f, name.loc, "elif")) {
                cd->taken = true;
                return;
            }
            continue;
        }
        f->L.quiet = true;
        skip_line(f);
    }
    f->L.quiet = false;
}

static void open_conditional(pp *p, frame *f, en_loc loc, const char *directive, bool value) {
    cond cd = {.loc = loc, .directive = directive, .taken = value};
    EN_PUSH(&p->c->arena, f->conds, cd);
    if (!value && f->conds.count) skip_group(p, f);
}

static void do_ifdef(pp *p, frame *f, en_loc loc, bool want_defined) {
    tok_vec line = read_line(p, f);
    bool value = false;
    if (!line.count) {
        en_error(&p->c->diags, loc, "macro name missing");
    } else if (line.items[0].kind != EN_TK_IDENT) {
        en_error(&p->c->diags, line.items[0].loc, "macro name must be an identifier");
    } else {
        value = (macro_find(p, line.items[0].text) != NULL) == want_defined;
        if (line.count > 1)
            en_warning(&p->c->diags, line.items[1].loc, "extra tokens at end of #%s directive",
                       want_defined ? "ifdef" : "ifndef");
    }
    open_conditional(p, f, loc, want_defined ? "#ifdef" : "#ifndef", value);
}

/* #elif, #else, #endif met in a group being processed */
static void do_else_group(pp *p, frame *f, const en_token *name) {
    const char *d = name->text;
    if (!f->conds.count) {
        en_error(&p->c->diags, name->loc, "#%s without #if", d);
        skip_line(f);
        return;
    }
    cond *cd = &f->conds.items[f->conds.count - 1];
    if (!strcmp(d, "endif")) {
        f->conds.count--;
        extra_tokens(p, f, "endif");
        return;
    }
    if (cd->seen_else) {
        en_error(&p->c->diags, name->loc, "#%s after #else", d);
        skip_line(f);
        return;
    }
    if (!strcmp(d, "else")) {
        cd->seen_else = true;
        extra_tokens(p, f, "else");
    } else {
        skip_line(f); /* a group was taken: the #elif's expression is not evaluated */
    }
    skip_group(p, f);
}

/* ---- #include (C11 6.10.2) ---------------------------------------------------------- */

static bool once_seen(pp *p, const char *canonical) {
    for (int i = 0; i < p->once.count; i++)
        if (strcmp(p->once.items[i], canonical) == 0) return true;
    return false;
}

/* `#include <metal_...>`: the <metal_stdlib> family's text (metal_headers.c), read once
 * per compile whichever of its headers names it first */
static void include_system(pp *p, const char *name, en_loc loc) {
    const char *refusal = en_metal_header_refusal(name);
    if (refusal) {
        en_error(&p->c->diags, loc, "%s", refusal);
        return;
    }
    if (!en_metal_header_known(name)) {
        en_error(&p->c->diags, loc, "unknown header <%s>", name);
        return;
    }
    static const char canonical[] = "<metal_stdlib>";
    if (once_seen(p, canonical)) return;
    EN_PUSH(&p->c->arena, p->once, canonical);
    const char *text = en_metal_header_text();
    int file = en_source_add(&p->c->sources, canonical, text, strlen(text));
    if (file >= 0) push_frame(p, file, canonical);
}

static void include_file(pp *p, frame *f, const char *name, en_loc loc) {
    if (p->depth >= MAX_INCLUDE_DEPTH) {
        en_error(&p->c->diags, loc, "#include nested too deeply (more than %d levels)",
                 MAX_INCLUDE_DEPTH);
        return;
    }
    if (++p->includes > MAX_INCLUDES) {
        if (p->includes == MAX_INCLUDES + 1)
            en_error(&p->c->diags, loc, "too many #include directives (more than %d)",
                     MAX_INCLUDES);
        return;
    }
    int ndirs = p->c->include_dir_count;
    for (int k = -1; k < ndirs; k++) {
        const char *path;
        if (name[0] == '/') path = name;
        else if (k < 0) path = en_fmt(&p->c->arena, "%s%s", f->dir, name);
        else path = en_fmt(&p->c->arena, "%s/%s", p->c->include_dirs[k], name);
        const char *canonical = canonical_path(p, path);
        if (!canonical) {
            if (name[0] == '/') break;
            continue;
        }
        if (once_seen(p, canonical)) return;
        struct stat st;
        if (stat(canonical, &st) != 0 || !S_ISREG(st.st_mode)) {
            /* a directory, /dev/zero, a FIFO: reading it could block or never end */
            en_error(&p->c->diags, loc, "include file \"%s\" is not a regular file", name);
            return;
        }
        int id = en_source_load(&p->c->sources, path);
        if (id < 0) continue;
        push_frame(p, id, canonical);
        return;
    }
    en_error(&p->c->diags, loc, "include file \"%s\" not found", name);
}

static void do_include(pp *p, frame *f, en_loc loc, bool in_args) {
    tok_vec line = read_line(p, f);
    const en_token *t = line.items;
    int n = line.count;
    if (n && t[0].kind != EN_TK_STRING && !is_punct(&t[0], "<")) {
        tok_vec expanded = expand_array(p, t, n); /* #include MACRO */
        t = expanded.items;
        n = expanded.count;
    }
    if (!n || (t[0].kind != EN_TK_STRING && !is_punct(&t[0], "<")) ||
        (t[0].kind == EN_TK_STRING && t[0].text[0] != '"')) {
        en_error(&p->c->diags, n ? t[0].loc : loc, "#include expects \"FILENAME\" or <FILENAME>");
        return;
    }
    const char *name;
    int used;
    bool angled = t[0].kind != EN_TK_STRING;
    if (!angled) {
        name = en_strndup(&p->c->arena, t[0].text + 1, (size_t)(t[0].len >= 2 ? t[0].len - 2 : 0));
        used = 1;
    } else {
        int k = 1;
        while (k < n && !is_punct(&t[k], ">")) k++;
        if (k >= n) {
            en_error(&p->c->diags, t[0].loc, "missing '>' in #include <FILENAME>");
            return;
        }
        /* the header name is the spelling between < and >, spaces as written */
        en_buf b = {0};
        for (int q = 1; q < k; q++) {
            if (q > 1 && t[q].has_space) en_buf_putc(&b, ' ');
            en_buf_puts(&b, t[q].text);
        }
        name = en_strdup(&p->c->arena, b.data ? b.data : "");
        en_buf_free(&b);
        used = k + 1;
    }
    if (used < n)
        en_warning(&p->c->diags, t[used].loc, "extra tokens at end of #include directive");
    if (!name[0]) {
        en_error(&p->c->diags, t[0].loc, "empty filename in #include");
        return;
    }
    if (in_args) {
        en_error(&p->c->diags, loc, "#include inside macro arguments is not supported");
        return;
    }
    if (angled) include_system(p, name, t[1].loc);
    else include_file(p, f, name, t[0].loc);
}

/* ---- #line, #pragma, #error, #warning ------------------------------------------------ */

static void do_line(pp *p, frame *f, en_loc loc) {
    tok_vec line = read_line(p, f);
    const en_token *t = line.items;
    int n = line.count;
    if (n && t[0].kind != EN_TK_INT) {
        tok_vec expanded = expand_array(p, t, n);
        t = expanded.items;
        n = expanded.count;
    }
    bool digits_only = n && t[0].kind == EN_TK_INT && strspn(t[0].text, "0123456789") == (size_t)t[0].len;
    if (!digits_only) {
        en_error(&p->c->diags, n ? t[0].loc : loc, "#line directive requires a positive integer argument");
        return;
    }
    if (t[0].ival == 0 || t[0].ival > INT32_MAX) {
        en_error(&p->c->diags, t[0].loc, "#line number %s is out of range", t[0].text);
        return;
    }
    if (n > 1) {
        if (t[1].kind != EN_TK_STRING || t[1].text[0] != '"') {
            en_error(&p->c->diags, t[1].loc, "invalid filename '%s' in #line directive", t[1].text);
            return;
        }
        if (n > 2) en_warning(&p->c->diags, t[2].loc, "extra tokens at end of #line directive");
        /* a new name for the same text, so that carets still find their lines */
        en_source src = p->c->sources.files.items[f->file];
        src.name = en_strndup(&p->c->arena, t[1].text + 1, (size_t)(t[1].len >= 2 ? t[1].len - 2 : 0));
        EN_PUSH(&p->c->arena, p->c->sources.files, src);
        f->L.loc_file = p->c->sources.files.count - 1;
    }
    f->L.line_offset = (int64_t)t[0].ival - (f->L.break_line + 1);
}

/* `#pragma unroll`, `#pragma unroll N`, `#pragma unroll(N)`, `#pragma unroll(expr)`: a token
 * for the parser, at `at`; `#pragma once` marks the file `canonical`; other pragmas are
 * ignored. Metal takes any integral constant expression in the parentheses (ggml writes
 * `#pragma unroll(chpt)` with a template parameter); the count is only a hint, and no
 * backend needs it yet, so an expression other than a literal is kept as "unroll" with no
 * count rather than evaluated here, before templates are bound. */
static bool pragma_tokens(pp *p, const en_token *t, int n, const char *canonical, en_loc at,
                          en_token *out) {
    if (n && is_ident(&t[0], "once")) {
        if (canonical && !once_seen(p, canonical)) EN_PUSH(&p->c->arena, p->once, canonical);
        return false;
    }
    if (!n || !is_ident(&t[0], "unroll")) return false; /* other pragmas are ignored */
    uint64_t count = 0;
    int k = 1;
    if (k < n && is_punct(&t[k], "(")) {
        int depth = 0, close = -1;
        for (int i = k; i < n && close < 0; i++) {
            if (is_punct(&t[i], "(")) depth++;
            else if (is_punct(&t[i], ")") && --depth == 0) close = i;
        }
        if (close < 0) {
            en_error(&p->c->diags, t[n - 1].loc, "expected ')' in '#pragma unroll'");
            return false;
        }
        if (close == k + 1) {
            en_error(&p->c->diags, t[close].loc, "expected a count in '#pragma unroll()'");
            return false;
        }
        if (close == k + 2 && t[k + 1].kind == EN_TK_INT) count = t[k + 1].ival;
        else count = UINT64_MAX; /* an expression: a hint without a count */
        k = close + 1;
    } else if (k < n && t[k].kind == EN_TK_INT) {
        count = t[k++].ival;
    } else if (k < n) {
        en_error(&p->c->diags, t[k].loc, "expected an integer count after '#pragma unroll'");
        return false;
    }
    if (count == UINT64_MAX) {
        count = 0;
    } else if (k > 1 && (count == 0 || count > INT32_MAX)) {
        en_error(&p->c->diags, t[k - 1 - (is_punct(&t[k - 1], ")") ? 1 : 0)].loc,
                 "'#pragma unroll' count must be between 1 and %d", INT32_MAX);
        return false;
    }
    if (k < n) en_warning(&p->c->diags, t[k].loc, "extra tokens at end of #pragma unroll");
    *out = make_token(p, EN_TK_PRAGMA, "unroll", at);
    out->ival = count;
    out->at_line_start = true;
    return true;
}

static bool do_pragma(pp *p, frame *f, const en_token *hash, en_token *out) {
    tok_vec line = read_line(p, f);
    return pragma_tokens(p, line.items, line.count, f->canonical, hash->loc, out);
}

static void do_message(pp *p, frame *f, const en_token *name, bool is_error) {
    tok_vec line = read_line(p, f);
    const char *text = spell_tokens(p, line.items, line.count);
    if (is_error)
        en_error(&p->c->diags, name->loc, "#error%s%s", *text ? " " : "", text);
    else
        en_warning(&p->c->diags, name->loc, "#warning%s%s", *text ? " " : "", text);
}

/* a directive after `#`; true when it yields a token (*out) */
static bool directive(pp *p, frame *f, const en_token *hash, bool in_args, en_token *out) {
    if (en_lex_line_ends(&f->L)) return false; /* the null directive */
    en_token name = en_lex_next(&f->L);
    const char *d = name.kind == EN_TK_IDENT ? name.text : "";
    if (!strcmp(d, "define")) do_define(p, f, name.loc);
    else if (!strcmp(d, "undef")) do_undef(p, f, name.loc);
    else if (!strcmp(d, "include")) do_include(p, f, name.loc, in_args);
    else if (!strcmp(d, "if")) open_conditional(p, f, name.loc, "#if", eval_condition(p, f, name.loc, "if"));
    else if (!strcmp(d, "ifdef")) do_ifdef(p, f, name.loc, true);
    else if (!strcmp(d, "ifndef")) do_ifdef(p, f, name.loc, false);
    else if (!strcmp(d, "elif") || !strcmp(d, "else") || !strcmp(d, "endif")) do_else_group(p, f, &name);
    else if (!strcmp(d, "line")) do_line(p, f, name.loc);
    else if (!strcmp(d, "pragma")) return do_pragma(p, f, hash, out);
    else if (!strcmp(d, "error")) do_message(p, f, &name, true);
    else if (!strcmp(d, "warning")) do_message(p, f, &name, false);
    else {
        if (name.kind == EN_TK_EOF) return false;
        en_error(&p->c->diags, name.loc, "invalid preprocessing directive '#%s'", name.text);
        skip_line(f);
    }
    return false;
}

/* ---- reading tokens from files ------------------------------------------------------ */

/* the next token of the file stack, directives carried out; with in_args, the end of a
 * file is kept (a macro's arguments may not run past it) */
static en_token next_file_token(pp *p, bool in_args) {
    for (;;) {
        frame *f = p->top;
        if (!f || p->c->arena.out_of_memory) return p->eof;
        en_token t;
        if (f->has_peeked) {
            t = f->peeked;
            f->has_peeked = false;
        } else {
            t = en_lex_next(&f->L);
        }
        if (t.kind == EN_TK_EOF) {
            if (in_args) {
                f->peeked = t;
                f->has_peeked = true;
                return t;
            }
            p->eof.loc = t.loc;
            pop_frame(p);
            continue;
        }
        if (t.at_line_start && is_punct(&t, "#")) {
            en_token pragma;
            if (directive(p, f, &t, in_args, &pragma)) return pragma;
            continue;
        }
        return t;
    }
}

static bool file_next_is_lparen(pp *p) {
    frame *f = p->top;
    if (!f) return false;
    if (!f->has_peeked) {
        f->peeked = en_lex_next(&f->L);
        f->has_peeked = true;
    }
    return is_punct(&f->peeked, "(");
}

/* ---- macro expansion (C11 6.10.3) --------------------------------------------------- */

static void pop_context(expander *E) {
    context *x = &E->ctxs.items[E->ctxs.count - 1];
    if (x->m) x->m->active--;
    E->ctxs.count--;
}

static en_token raw_next(pp *p, expander *E) {
    while (E->ctxs.count) {
        context *x = &E->ctxs.items[E->ctxs.count - 1];
        if (x->pos < x->count) return x->toks[x->pos++];
        pop_context(E);
    }
    if (E->from_file) return next_file_token(p, E->in_args);
    if (E->arr_pos < E->arr_count) return E->arr[E->arr_pos++];
    return p->eof;
}

static bool next_is_lparen(pp *p, expander *E) {
    while (E->ctxs.count) {
        context *x = &E->ctxs.items[E->ctxs.count - 1];
        if (x->pos < x->count) return is_punct(&x->toks[x->pos], "(");
        pop_context(E);
    }
    if (E->from_file) return file_next_is_lparen(p);
    return E->arr_pos < E->arr_count && is_punct(&E->arr[E->arr_pos], "(");
}

typedef struct macro_arg {
    en_token *toks;
    int count;
    tok_vec expanded;
    bool is_expanded;
} macro_arg;

typedef EN_VEC(macro_arg) arg_vec;

/* the arguments after `(`, up to the matching `)` */
static bool collect_args(pp *p, expander *E, const macro *m, const en_token *use, arg_vec *args) {
    bool saved = E->in_args;
    E->in_args = true;
    tok_vec cur = {0};
    int depth = 0;
    bool ok = true;
    for (;;) {
        en_token t = raw_next(p, E);
        if (t.kind == EN_TK_EOF) {
            en_error(&p->c->diags, use->loc, "unterminated argument list invoking macro '%s'",
                     m->name);
            ok = false;
            break;
        }
        if (is_punct(&t, "(")) depth++;
        else if (is_punct(&t, ")") && depth-- == 0) break;
        else if (is_punct(&t, ",") && depth == 0 &&
                 !(m->variadic && args->count == m->nparams - 1)) {
            EN_PUSH(&p->c->arena, *args, ((macro_arg){.toks = cur.items, .count = cur.count}));
            cur = (tok_vec){0};
            continue;
        }
        spend(p, 1, use->loc);
        EN_PUSH(&p->c->arena, cur, t);
    }
    E->in_args = saved;
    if (!ok) return false;
    EN_PUSH(&p->c->arena, *args, ((macro_arg){.toks = cur.items, .count = cur.count}));
    if (m->nparams == 0 && args->count == 1 && args->items[0].count == 0) args->count = 0;
    if (m->variadic && args->count == m->nparams - 1)
        EN_PUSH(&p->c->arena, *args, ((macro_arg){0}));
    if (args->count < m->nparams) {
        en_error(&p->c->diags, use->loc, "macro '%s' requires %d argument%s, but only %d given",
                 m->name, m->nparams, m->nparams == 1 ? "" : "s", args->count);
        return false;
    }
    if (args->count > m->nparams) {
        en_error(&p->c->diags, use->loc, "macro '%s' passed %d argument%s, but takes just %d",
                 m->name, args->count, args->count == 1 ? "" : "s", m->nparams);
        return false;
    }
    return true;
}

/* C11 6.10.3.2: the argument's spelling as a string literal */
static en_token stringize(pp *p, const macro_arg *a, en_loc loc) {
    spend(p, a->count, loc); /* reading the argument is work too */
    en_buf b = {0};
    en_buf_putc(&b, '"');
    for (int i = 0; i < a->count; i++) {
        const en_token *t = &a->toks[i];
        if (i > 0 && (t->has_space || t->at_line_start)) en_buf_putc(&b, ' ');
        bool quoted = t->kind == EN_TK_STRING || t->kind == EN_TK_CHAR;
        for (int k = 0; k < t->len; k++) {
            char ch = t->text[k];
            if (quoted && (ch == '"' || ch == '\\')) en_buf_putc(&b, '\\');
            en_buf_putc(&b, ch);
        }
    }
    en_buf_putc(&b, '"');
    en_token s = make_token(p, EN_TK_STRING, b.data ? b.data : "\"\"", loc);
    en_buf_free(&b);
    return s;
}

/* C11 6.10.3.3: the one token that the spellings of a and b make, relexed */
static bool paste(pp *p, const en_token *a, const en_token *b, en_loc use, en_token *out) {
    const char *text = en_fmt(&p->c->arena, "%s%s", a->text, b->text);
    en_lexer L;
    en_lexer_init(&L, p->c, a->loc.file, text, strlen(text));
    L.quiet = true;
    en_token t = en_lex_next(&L);
    if (t.kind == EN_TK_EOF || L.errors || en_lex_next(&L).kind != EN_TK_EOF) {
        en_error(&p->c->diags, use, "pasting \"%s\" and \"%s\" does not give a valid preprocessing token",
                 a->text, b->text);
        return false;
    }
    t.loc = a->loc;
    t.has_space = a->has_space;
    *out = t;
    return true;
}

static const tok_vec *expanded_arg(pp *p, macro_arg *a) {
    if (!a->is_expanded) {
        a->expanded = expand_array(p, a->toks, a->count);
        a->is_expanded = true;
    }
    return &a->expanded;
}

static void push_tokens(pp *p, tok_vec *out, const en_token *t, int n) {
    for (int i = 0; i < n; i++) EN_PUSH(&p->c->arena, *out, t[i]);
}

/* the macro's replacement list with arguments substituted, # and ## applied */
static tok_vec substitute(pp *p, const macro *m, macro_arg *args, en_loc use) {
    tok_vec out = {0};
    bool last_empty = false; /* the last operand was an empty argument (a placemarker) */
    for (int i = 0; i < m->nbody; i++) {
        const en_token *b = &m->body[i];
        int param = m->body_param[i];
        if (param < 0 && is_punct(b, "##") && i + 1 < m->nbody) {
            /* the right operand */
            i++;
            tok_vec right = {0};
            int rparam = m->body_param[i];
            if (m->funclike && rparam < 0 && is_punct(&m->body[i], "#") && i + 1 < m->nbody) {
                i++;
                EN_PUSH(&p->c->arena, right, stringize(p, &args[m->body_param[i]], m->body[i].loc));
            } else if (rparam >= 0) {
                push_tokens(p, &right, args[rparam].toks, args[rparam].count);
            } else {
                EN_PUSH(&p->c->arena, right, m->body[i]);
            }
            /* GNU's `, ## __VA_ARGS__`: the comma goes when the variable arguments are empty */
            bool gnu_comma = m->variadic && rparam == m->nparams - 1 && !last_empty &&
                             out.count && is_punct(&out.items[out.count - 1], ",");
            if (gnu_comma) {
                if (!right.count) out.count--;
                push_tokens(p, &out, right.items, right.count);
                last_empty = false;
                continue;
            }
            if (last_empty || !out.count) {
                push_tokens(p, &out, right.items, right.count);
                last_empty = right.count == 0;
                continue;
            }
            if (!right.count) continue;
            en_token joined;
            if (paste(p, &out.items[out.count - 1], &right.items[0], use, &joined)) {
                out.items[out.count - 1] = joined;
                push_tokens(p, &out, right.items + 1, right.count - 1);
            } else {
                push_tokens(p, &out, right.items, right.count);
            }
            last_empty = false;
            continue;
        }
        if (m->funclike && param < 0 && is_punct(b, "#") && i + 1 < m->nbody) {
            i++;
            en_token s = stringize(p, &args[m->body_param[i]], b->loc);
            s.has_space = b->has_space;
            EN_PUSH(&p->c->arena, out, s);
            last_empty = false;
            continue;
        }
        if (param >= 0) {
            macro_arg *a = &args[param];
            bool before_paste = i + 1 < m->nbody && m->body_param[i + 1] < 0 &&
                                is_punct(&m->body[i + 1], "##");
            int start = out.count;
            if (before_paste) push_tokens(p, &out, a->toks, a->count);
            else {
                const tok_vec *x = expanded_arg(p, a);
                push_tokens(p, &out, x->items, x->count);
            }
            if (out.count > start && !p->c->arena.out_of_memory)
                out.items[start].has_space = b->has_space;
            last_empty = out.count == start;
            continue;
        }
        EN_PUSH(&p->c->arena, out, *b);
        last_empty = false;
    }
    return out;
}

static en_token builtin_macro(pp *p, const macro *m, const en_token *use) {
    en_token t;
    if (m->kind == MACRO_LINE) {
        t = make_token(p, EN_TK_INT, en_fmt(&p->c->arena, "%d", use->loc.line), use->loc);
        t.ival = (uint64_t)use->loc.line;
    } else {
        const char *file = use->loc.file >= 0 && use->loc.file < p->c->sources.files.count
                               ? p->c->sources.files.items[use->loc.file].name
                               : "";
        en_buf b = {0};
        en_buf_putc(&b, '"');
        for (const char *s = file; *s; s++) {
            if (*s == '"' || *s == '\\') en_buf_putc(&b, '\\');
            en_buf_putc(&b, *s);
        }
        en_buf_putc(&b, '"');
        t = make_token(p, EN_TK_STRING, b.data ? b.data : "\"\"", use->loc);
        en_buf_free(&b);
    }
    t.at_line_start = use->at_line_start;
    t.has_space = use->has_space;
    return t;
}

/* C11 6.10.9: `_Pragma ( string-literal )` acts as the #pragma line the string spells,
 * so that macros can carry `#pragma unroll`. True when it yields a token (*out). */
static bool pragma_operator(pp *p, expander *E, const en_token *op, en_token *out) {
    bool saved = E->in_args;
    E->in_args = true; /* its operand may not run past the end of a file */
    raw_next(p, E);    /* ( */
    en_token s = raw_next(p, E);
    en_token close = s.kind == EN_TK_EOF ? s : raw_next(p, E);
    E->in_args = saved;
    if (s.kind != EN_TK_STRING || s.text[0] != '"' || !is_punct(&close, ")")) {
        en_error(&p->c->diags, op->loc, "_Pragma takes a parenthesized string literal");
        return false;
    }
    /* destringize: drop the quotes, unescape \" and \\ */
    char *text = en_alloc(&p->c->arena, (size_t)s.len + 1);
    if (p->c->arena.out_of_memory) return false;
    size_t k = 0;
    for (int i = 1; i + 1 < s.len; i++) {
        if (s.text[i] == '\\' && i + 2 < s.len && (s.text[i + 1] == '"' || s.text[i + 1] == '\\')) i++;
        text[k++] = s.text[i];
    }
    text[k] = 0;
    en_lexer L;
    en_lexer_init(&L, p->c, op->loc.file, text, k);
    L.quiet = true;
    tok_vec toks = {0};
    for (en_token t = en_lex_next(&L); t.kind != EN_TK_EOF; t = en_lex_next(&L)) {
        t.loc = op->loc;
        EN_PUSH(&p->c->arena, toks, t);
    }
    return pragma_tokens(p, toks.items, toks.count, p->top ? p->top->canonical : NULL, op->loc, out);
}

/* the next token after macro expansion */
static en_token expand_next(pp *p, expander *E) {
    for (;;) {
        if (p->c->arena.out_of_memory) return p->eof;
        en_token t = raw_next(p, E);
        if (t.kind != EN_TK_IDENT || t.no_expand || p->budget_exceeded) return t;
        if (en_streq(t.text, "_Pragma") && next_is_lparen(p, E)) {
            en_token pragma;
            if (pragma_operator(p, E, &t, &pragma)) return pragma;
            continue;
        }
        macro *m = macro_find(p, t.text);
        if (!m) return t;
        if (m->active) {
            t.no_expand = true; /* painted: stays unexpanded wherever it goes */
            return t;
        }
        if (m->kind != MACRO_USER) return builtin_macro(p, m, &t);
        tok_vec result;
        if (m->funclike) {
            if (!next_is_lparen(p, E)) return t;
            raw_next(p, E); /* ( */
            arg_vec args = {0};
            if (!collect_args(p, E, m, &t, &args)) continue;
            result = substitute(p, m, args.items, t.loc);
        } else {
            result = substitute(p, m, NULL, t.loc);
        }
        if (!spend(p, result.count + 1, t.loc)) return t;
        if (p->c->arena.out_of_memory) return p->eof;
        for (int i = 0; i < result.count; i++) {
            result.items[i].loc = t.loc;
            result.items[i].at_line_start = false;
        }
        if (result.count) {
            result.items[0].at_line_start = t.at_line_start;
            result.items[0].has_space = t.has_space;
        }
        context x = {.toks = result.items, .count = result.count, .m = m};
        EN_PUSH(&p->c->arena, E->ctxs, x);
        if (p->c->arena.out_of_memory) return p->eof;
        m->active++;
    }
}

/* the tokens of an array (a macro argument, a directive line), fully expanded */
static tok_vec expand_array(pp *p, const en_token *toks, int n) {
    tok_vec out = {0};
    if (p->arg_depth >= MAX_ARG_DEPTH) {
        if (!p->arg_depth_reported && n)
            en_error(&p->c->diags, toks[0].loc, "macro arguments are nested too deeply (more than %d levels)",
                     MAX_ARG_DEPTH);
        p->arg_depth_reported = true;
        push_tokens(p, &out, toks, n);
        return out;
    }
    p->arg_depth++;
    expander sub = {.arr = toks, .arr_count = n};
    for (;;) {
        en_token t = expand_next(p, &sub);
        if (t.kind == EN_TK_EOF) break;
        spend(p, 1, t.loc);
        EN_PUSH(&p->c->arena, out, t);
    }
    while (sub.ctxs.count) pop_context(&sub);
    p->arg_depth--;
    return out;
}

/* ---- the driver ---------------------------------------------------------------------- */

/* reads a source of #define lines (the built-ins, the command line) */
static void read_definitions(pp *p, int file) {
    push_frame(p, file, NULL);
    for (;;) {
        en_token t = next_file_token(p, false);
        if (t.kind == EN_TK_EOF) break;
        en_error(&p->c->diags, t.loc, "unexpected token '%s' in a definition", t.text);
    }
}

static void command_line_defines(pp *p) {
    if (!p->c->define_count) return;
    en_buf b = {0};
    for (int i = 0; i < p->c->define_count; i++) {
        const char *d = p->c->defines[i];
        if (!d) continue;
        const char *eq = strchr(d, '=');
        en_buf_puts(&b, "#define ");
        for (const char *s = d; *s && s != eq; s++) en_buf_putc(&b, *s == '\n' || *s == '\r' ? ' ' : *s);
        en_buf_putc(&b, ' ');
        if (!eq) en_buf_putc(&b, '1');
        else
            for (const char *s = eq + 1; *s; s++) en_buf_putc(&b, *s == '\n' || *s == '\r' ? ' ' : *s);
        en_buf_putc(&b, '\n');
    }
    int file = en_source_add(&p->c->sources, "<command line>", b.data ? b.data : "", b.len);
    en_buf_free(&b);
    if (!p->c->arena.out_of_memory) read_definitions(p, file);
}

en_tokens en_preprocess(en_ctx *c, int file) {
    pp P = {.c = c, .builtin_file = -1}, *p = &P;
    p->eof = (en_token){.kind = EN_TK_EOF, .text = "", .loc = {file, 1, 1}};
    tok_vec out = {0};
    if (file < 0 || file >= c->sources.files.count) {
        en_error(&c->diags, (en_loc){-1, 0, 0}, "no source file %d to preprocess", file);
        EN_PUSH(&c->arena, out, p->eof);
        return (en_tokens){out.items, out.count};
    }
    p->buckets = en_alloc(&c->arena, sizeof(macro *) * MACRO_BUCKETS);
    if (!c->arena.out_of_memory) {
        static const char *const dynamic[] = {"__LINE__", "__FILE__"};
        for (int i = 0; i < 2; i++) {
            macro *m = en_alloc(&c->arena, sizeof *m);
            m->name = dynamic[i];
            m->kind = i == 0 ? MACRO_LINE : MACRO_FILE;
            m->loc = (en_loc){-1, 0, 0};
            if (!c->arena.out_of_memory) macro_put(p, m);
        }
        const char *builtin = en_pp_builtin_text();
        p->builtin_file = en_source_add(&c->sources, "<builtin>", builtin, strlen(builtin));
        read_definitions(p, p->builtin_file);
        command_line_defines(p);
    }
    if (!c->arena.out_of_memory) {
        push_frame(p, file, canonical_path(p, c->sources.files.items[file].name));
        expander E = {.from_file = true};
        for (;;) {
            en_token t = expand_next(p, &E);
            if (t.kind == EN_TK_EOF) break;
            t.no_expand = false;
            EN_PUSH(&c->arena, out, t);
        }
    }
    en_token eof = p->eof;
    eof.at_line_start = true;
    EN_PUSH(&c->arena, out, eof);
    if (c->arena.out_of_memory || !out.count) {
        static en_token lone_eof = {.kind = EN_TK_EOF, .text = "", .loc = {-1, 0, 0}};
        return (en_tokens){&lone_eof, 1};
    }
    return (en_tokens){out.items, out.count};
}
