/* parse.c — the parser: preprocessed tokens in, syntax tree (ast.h) out.
 *
 * Needs: a token array ending with EN_TK_EOF (a missing EOF is tolerated); keywords come
 * as EN_TK_IDENT and are matched by their text here.
 * Guarantees: a well-formed tree for any input (ERROR nodes where parsing failed), every
 * node allocated in c->arena, diagnostics at file:line:col with recovery at ';' and '}'
 * so one run reports several errors, termination on every input (each loop consumes a
 * token or leaves), and bounded recursion ("... nested too deeply" at MAX_DEPTH).
 *
 * Recursive descent, one function per grammar rule with the rule above it (chibicc's
 * habit). MSL is C++, so three decisions need knowledge rather than grammar:
 *   - declaration or expression: a statement that starts with a name known as a type
 *     (built-in MSL type, typedef, struct, enum, template parameter, ...) is a
 *     declaration, unless the type is followed by '(' or '{' (a functional cast such as
 *     `float4(a, b).x;`). Names live in one hash table holding each name's meaning at
 *     this point; block and template-parameter scopes keep undo logs that restore the
 *     outer meaning when they close, so a local variable shadows a type of the same
 *     name only inside its block.
 *   - '<' after a known template name (vec, atomic, as_type, a user template...) opens
 *     template arguments, and so does '<' after a name that is neither a variable nor a
 *     type when a type follows it (`max<float>(a, b)`); anywhere else it is less-than.
 *     Inside template arguments '>' closes the list and '>>' closes two.
 *   - '[[' starts an attribute.
 * Unsupported MSL (textures, samplers, vertex/fragment functions, goto, double...) is
 * reported by name where it is written, and parsing goes on. */
#include "ast.h"

#include <string.h>

#define MAX_DEPTH 256
/* `a + b + c ...`, `a[i][j]...` and `f()()...` are parsed by loops but make left-deep
 * trees that the checker walks recursively: their links count too, up to this many */
#define MAX_LINKS 1024

/* ---- the name table ------------------------------------------------------------------ */
typedef enum sym_kind {
    SYM_NONE,
    SYM_VALUE,           /* a variable, parameter or function: shadows types */
    SYM_TYPE,            /* a type name */
    SYM_TEMPLATE_TYPE,   /* a class/alias template: a type, and '<' opens arguments */
    SYM_TEMPLATE_FUNC,   /* a function template: '<' opens arguments, not a type */
    SYM_UNSUPPORTED,     /* a Metal type enigma rejects by name (textures, samplers...) */
} sym_kind;

typedef struct sym {
    const char *name;
    int len;
    sym_kind kind;
} sym;

typedef struct scope {
    struct scope *parent;
    sym *items;           /* undo log: each name declared here with its previous meaning */
    int count, cap;
    bool template_params; /* names declared inside go to the enclosing scope */
} scope;

typedef struct parser {
    en_ctx *c;
    en_arena *a;
    const en_token *toks;
    int count; /* tokens before the EOF */
    int pos;
    en_token eof;
    bool aborted;     /* too deep, too many errors or out of memory: everything reads EOF */
    int depth;
    int links;        /* operator links in the chains being parsed (MAX_LINKS) */
    bool in_targs;    /* '>' closes a template argument list */
    bool split_gt;    /* the current '>>' has had its first '>' taken */
    en_loc last_error;
    bool has_last_error;
    sym *globals;     /* open-addressing hash: every name's meaning at this point */
    int global_cap, global_count;
    scope *scope;     /* innermost block or template-parameter scope; NULL at program scope */
    const char *struct_name; /* innermost struct being defined (constructors) */
    bool template_pending;   /* the declaration being parsed follows template<...> */
    bool unknown_type_ok;    /* the next block declaration may start with an unknown name */
    int anon_count;
} parser;

/* ---- tokens ---------------------------------------------------------------------------- */
static const en_token *tok_at(parser *p, int i) {
    if (p->aborted || i < 0 || i >= p->count) return &p->eof;
    return &p->toks[i];
}

static const en_token *peek(parser *p) {
    if (p->a->out_of_memory) p->aborted = true;
    return tok_at(p, p->pos);
}

static bool tok_is(const en_token *t, const char *s) {
    if (t->kind != EN_TK_IDENT && t->kind != EN_TK_PUNCT) return false;
    /* most tests fail at the first character: no strlen for them (a large share of
     * parse time on generated kernels) */
    if (t->len > 0 && t->text && t->text[0] != s[0]) return false;
    size_t n = strlen(s);
    return (size_t)t->len == n && memcmp(t->text, s, n) == 0;
}

/* the current token is `s`; a half-taken '>>' reads as '>' */
static bool is(parser *p, const char *s) {
    if (p->aborted) return false;
    if (p->split_gt) return strcmp(s, ">") == 0;
    return tok_is(peek(p), s);
}

static bool is_at(parser *p, int n, const char *s) { return tok_is(tok_at(p, p->pos + n), s); }

static bool is_ident(parser *p) { return peek(p)->kind == EN_TK_IDENT && !p->split_gt; }

static void advance(parser *p) {
    p->split_gt = false;
    if (p->pos < p->count) p->pos++;
}

static bool accept(parser *p, const char *s) {
    if (!is(p, s)) return false;
    advance(p);
    return true;
}

static en_loc loc_here(parser *p) { return peek(p)->loc; }

/* just past the previous token: where a missing ';' belongs */
static en_loc loc_prev_end(parser *p) {
    if (p->pos == 0 || p->pos > p->count) return loc_here(p);
    const en_token *t = &p->toks[p->pos - 1];
    en_loc l = t->loc;
    l.col += t->len;
    return l;
}

static const char *tok_str(parser *p, const en_token *t) {
    return en_strndup(p->a, t->text ? t->text : "", t->text ? (size_t)t->len : 0);
}

/* ---- diagnostics ---------------------------------------------------------------------- */
static void error_at(parser *p, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
static void error_at(parser *p, en_loc loc, const char *fmt, ...) {
    if (p->aborted) return;
    /* one error per place: the first is the useful one, the rest are its echoes */
    if (p->has_last_error && p->last_error.file == loc.file && p->last_error.line == loc.line &&
        p->last_error.col == loc.col)
        return;
    p->last_error = loc;
    p->has_last_error = true;
    va_list ap;
    va_start(ap, fmt);
    en_diag_add(&p->c->diags, EN_ERROR, loc, fmt, ap);
    va_end(ap);
    int limit = p->c->diags.max_errors ? p->c->diags.max_errors : 100;
    if (p->c->diags.errors >= limit) {
        /* stop here; one more error (not kept) makes the renderer say the rest is cut */
        en_error(&p->c->diags, loc, "too many errors");
        p->aborted = true;
    }
}

static const char *tok_desc(parser *p, const en_token *t) {
    if (t->kind == EN_TK_EOF) return "end of file";
    if (t->kind == EN_TK_PRAGMA) return "'#pragma'";
    if (p->split_gt) return "'>'";
    return en_fmt(p->a, "'%.*s'", t->len > 40 ? 40 : t->len, t->text ? t->text : "");
}

static bool expect(parser *p, const char *s) {
    if (accept(p, s)) return true;
    error_at(p, loc_here(p), "expected '%s' before %s", s, tok_desc(p, peek(p)));
    return false;
}

/* takes a '>' closing template arguments, splitting a '>>' */
static bool expect_gt(parser *p) {
    if (p->split_gt) {
        advance(p);
        return true;
    }
    if (tok_is(peek(p), ">>")) {
        p->split_gt = true;
        return true;
    }
    if (accept(p, ">")) return true;
    error_at(p, loc_here(p), "expected '>' to close the template argument list");
    return false;
}

/* recovery: skips to just after the next ';' or to just before the next '}' at this
 * nesting level; a whole {...} block skipped at this level ends the skip too */
static void skip_to_sync(parser *p) {
    int depth = 0;
    for (;;) {
        const en_token *t = peek(p);
        if (t->kind == EN_TK_EOF) return;
        if (depth == 0 && is(p, ";")) {
            advance(p);
            return;
        }
        if (depth == 0 && is(p, "}")) return;
        if (is(p, "(") || is(p, "[") || is(p, "{")) {
            depth++;
        } else if (is(p, ")") || is(p, "]") || is(p, "}")) {
            bool brace = is(p, "}");
            if (depth > 0) depth--;
            if (depth == 0 && brace) {
                advance(p);
                return;
            }
        }
        advance(p);
    }
}

/* skips a balanced (...), [...] or {...} starting at the current opener */
static void skip_balanced(parser *p) {
    int depth = 0;
    do {
        if (peek(p)->kind == EN_TK_EOF) return;
        if (is(p, "(") || is(p, "[") || is(p, "{")) depth++;
        else if (is(p, ")") || is(p, "]") || is(p, "}")) depth--;
        advance(p);
    } while (depth > 0);
}

/* the statement/expression ends with ';': reports and recovers when it does not. A
 * missing ';' at the end of a line is taken as written, the way clang recovers. */
static void expect_semi(parser *p, const char *after, int errors_before) {
    if (accept(p, ";")) return;
    /* after an error inside the construct, a missing ';' is its echo: recover quietly */
    if (p->c->diags.errors == errors_before)
        error_at(p, loc_prev_end(p), "expected ';' %s", after);
    if (peek(p)->at_line_start || is(p, "}")) return;
    skip_to_sync(p);
}

static bool enter(parser *p, const char *what) {
    if (p->depth >= MAX_DEPTH) {
        error_at(p, loc_here(p), "%s nested too deeply", what);
        p->aborted = true;
        return false;
    }
    p->depth++;
    return true;
}

static void leave(parser *p) { p->depth--; }

/* one more link in a left-deep chain; false (reported, parse aborted) past MAX_LINKS */
static bool link_chain(parser *p, int *links, const char *what) {
    if (p->links >= MAX_LINKS) {
        error_at(p, loc_here(p), "%s nested too deeply", what);
        p->aborted = true;
        return false;
    }
    p->links++;
    (*links)++;
    return true;
}

/* ---- nodes ---------------------------------------------------------------------------- */
static ast_expr *new_expr(parser *p, ast_expr_kind kind, en_loc loc) {
    ast_expr *e = en_alloc(p->a, sizeof *e);
    e->kind = kind;
    e->loc = loc;
    return e;
}

static ast_expr *error_expr(parser *p) { return new_expr(p, AST_EXPR_ERROR, loc_here(p)); }

static ast_stmt *new_stmt(parser *p, ast_stmt_kind kind, en_loc loc) {
    ast_stmt *s = en_alloc(p->a, sizeof *s);
    s->kind = kind;
    s->loc = loc;
    return s;
}

static ast_decl *new_decl(parser *p, ast_decl_kind kind, en_loc loc) {
    ast_decl *d = en_alloc(p->a, sizeof *d);
    d->kind = kind;
    d->loc = loc;
    return d;
}

static ast_type *new_type(parser *p, ast_type_kind kind, en_loc loc) {
    ast_type *t = en_alloc(p->a, sizeof *t);
    t->kind = kind;
    t->loc = loc;
    return t;
}

static ast_type *named_type(parser *p, const char *name, en_loc loc) {
    ast_type *t = new_type(p, AST_TYPE_NAME, loc);
    t->name.loc = loc;
    t->name.parts = en_alloc(p->a, sizeof *t->name.parts);
    t->name.parts[0].ident = name;
    t->name.parts[0].loc = loc;
    t->name.count = 1;
    return t;
}

/* ---- the name table ------------------------------------------------------------------- */
static uint64_t name_hash(const char *s, int len) { return en_hash64(s, (size_t)len, 0); }

static void global_put(parser *p, const char *name, int len, sym_kind kind) {
    if (p->global_count * 2 >= p->global_cap) {
        int ncap = p->global_cap ? p->global_cap * 2 : 512;
        sym *n = en_alloc(p->a, sizeof(sym) * (size_t)ncap);
        if (p->a->out_of_memory) return;
        for (int i = 0; i < p->global_cap; i++) {
            sym *s = &p->globals[i];
            if (!s->name) continue;
            size_t h = (size_t)name_hash(s->name, s->len) & (size_t)(ncap - 1);
            while (n[h].name) h = (h + 1) & (size_t)(ncap - 1);
            n[h] = *s;
        }
        p->globals = n;
        p->global_cap = ncap;
    }
    size_t mask = (size_t)p->global_cap - 1;
    size_t h = (size_t)name_hash(name, len) & mask;
    while (p->globals[h].name) {
        sym *s = &p->globals[h];
        if (s->len == len && memcmp(s->name, name, (size_t)len) == 0) {
            s->kind = kind;
            return;
        }
        h = (h + 1) & mask;
    }
    p->globals[h] = (sym){name, len, kind};
    p->global_count++;
}

static sym_kind global_get(parser *p, const char *name, int len) {
    if (!p->global_cap) return SYM_NONE;
    size_t mask = (size_t)p->global_cap - 1;
    size_t h = (size_t)name_hash(name, len) & mask;
    while (p->globals[h].name) {
        sym *s = &p->globals[h];
        if (s->len == len && memcmp(s->name, name, (size_t)len) == 0) return s->kind;
        h = (h + 1) & mask;
    }
    return SYM_NONE;
}

/* the message for a Metal type enigma rejects, or NULL */
static const char *unsupported_type_message(const char *s, int len) {
    char buf[64];
    if (len <= 0 || len >= (int)sizeof buf) return NULL;
    memcpy(buf, s, (size_t)len);
    buf[len] = 0;
    if (strncmp(buf, "texture", 7) == 0 &&
        ((buf[7] >= '1' && buf[7] <= '3') || strncmp(buf + 7, "cube", 4) == 0 ||
         strcmp(buf + 7, "_buffer") == 0))
        return "textures are not supported by enigma";
    if (strncmp(buf, "depth", 5) == 0 &&
        ((buf[5] >= '1' && buf[5] <= '3') || strncmp(buf + 5, "cube", 4) == 0))
        return "depth textures are not supported by enigma";
    if (strcmp(buf, "sampler") == 0) return "samplers are not supported by enigma";
    if (strncmp(buf, "imageblock", 10) == 0) return "imageblocks are not supported by enigma";
    static const char *const raytracing[] = {
        "acceleration_structure", "primitive_acceleration_structure",
        "instance_acceleration_structure", "intersector", "intersection_function_table",
        "intersection_result", "intersection_query",
        "raytracing", "intersection_params",
    };
    for (size_t i = 0; i < EN_COUNT(raytracing); i++)
        if (strcmp(buf, raytracing[i]) == 0) return "ray tracing is not supported by enigma";
    if (strcmp(buf, "visible_function_table") == 0)
        return "visible function tables are not supported by enigma";
    if (strcmp(buf, "mesh_grid_properties") == 0 || strcmp(buf, "render_grid_properties") == 0)
        return "mesh shaders are not supported by enigma";
    if (strcmp(buf, "render_pipeline_state") == 0 || strcmp(buf, "indirect_command_buffer") == 0 ||
        strcmp(buf, "command_buffer") == 0 || strcmp(buf, "compute_pipeline_state") == 0)
        return "indirect command buffers are not supported by enigma";
    return NULL;
}

static sym_kind lookup(parser *p, const char *name, int len) {
    sym_kind k = global_get(p, name, len);
    if (k != SYM_NONE) return k;
    if (unsupported_type_message(name, len)) return SYM_UNSUPPORTED;
    return SYM_NONE;
}

static sym_kind lookup_tok(parser *p, const en_token *t) {
    if (t->kind != EN_TK_IDENT) return SYM_NONE;
    return lookup(p, t->text, t->len);
}

static bool kind_is_type(sym_kind k) {
    return k == SYM_TYPE || k == SYM_TEMPLATE_TYPE || k == SYM_UNSUPPORTED;
}

static bool kind_is_template(sym_kind k) {
    return k == SYM_TEMPLATE_TYPE || k == SYM_TEMPLATE_FUNC || k == SYM_UNSUPPORTED;
}

/* declares `name` in scope `s`: the table takes the new meaning at once and the scope
 * remembers the old one, which pop_scope puts back */
static void scope_put(parser *p, scope *s, const char *name, sym_kind kind) {
    if (!name) return;
    int len = (int)strlen(name);
    sym undo = {name, len, global_get(p, name, len)};
    EN_PUSH(p->a, *s, undo);
    global_put(p, name, len, kind);
}

/* declares `name` in the innermost block scope, or at program scope */
static void declare(parser *p, const char *name, sym_kind kind) {
    if (!name) return;
    scope *s = p->scope;
    while (s && s->template_params) s = s->parent;
    if (s) scope_put(p, s, name, kind);
    else global_put(p, name, (int)strlen(name), kind);
}

static scope *push_scope(parser *p, bool template_params) {
    scope *s = en_alloc(p->a, sizeof *s);
    s->parent = p->scope;
    s->template_params = template_params;
    p->scope = s;
    return s;
}

static void pop_scope(parser *p, scope *s) {
    /* undo every scope down to s, in case an inner one was left open */
    for (scope *x = p->scope; x; x = x->parent) {
        for (int i = x->count - 1; i >= 0; i--)
            global_put(p, x->items[i].name, x->items[i].len, x->items[i].kind);
        x->count = 0;
        if (x == s) break;
    }
    p->scope = s->parent;
}

/* the MSL types and templates every program sees (metal_stdlib is built in) */
static void declare_builtins(parser *p) {
    static const char *const scalars[] = {
        "bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
        "half", "float", "bfloat",
    };
    static const char *const others[] = {
        "void", "size_t", "ptrdiff_t", "int8_t", "uint8_t", "int16_t", "uint16_t",
        "int32_t", "uint32_t", "int64_t", "uint64_t", "intptr_t", "uintptr_t",
        "atomic_int", "atomic_uint", "atomic_bool", "atomic_float", "atomic_long",
        "atomic_ulong", "simdgroup_float8x8", "simdgroup_half8x8", "simdgroup_bfloat8x8",
        "simd_vote", "quad_vote", "vote_t", "mem_flags", "memory_order", "memory_scope",
        "thread_scope", "nullptr_t", "half_t", "float_t", "packed_half3", "uchar_t",
    };
    static const char *const type_templates[] = {
        "vec", "packed_vec", "atomic", "array", "simdgroup_matrix", "matrix",
        "numeric_limits", "enable_if", "enable_if_t", "conditional", "conditional_t",
        "make_signed", "make_signed_t", "make_unsigned", "make_unsigned_t", "remove_cv",
        "remove_cv_t", "remove_reference", "remove_reference_t", "remove_const",
        "remove_const_t", "decay", "decay_t", "integral_constant", "array_ref",
        "is_same", "is_floating_point", "is_integral", "is_signed", "is_unsigned",
        "is_scalar", "is_vector", "is_arithmetic", "is_pointer", "vec_elements",
    };
    static const char *const func_templates[] = {
        "as_type", "make_filled_simdgroup_matrix", "is_same_v", "is_floating_point_v",
        "is_integral_v", "is_signed_v", "is_unsigned_v", "is_scalar_v", "is_vector_v",
        "is_arithmetic_v", "is_pointer_v", "declval",
    };
    for (size_t i = 0; i < EN_COUNT(scalars); i++) {
        global_put(p, scalars[i], (int)strlen(scalars[i]), SYM_TYPE);
        for (int n = 2; n <= 4; n++) {
            const char *v = en_fmt(p->a, "%s%d", scalars[i], n);
            global_put(p, v, (int)strlen(v), SYM_TYPE);
            const char *pv = en_fmt(p->a, "packed_%s%d", scalars[i], n);
            global_put(p, pv, (int)strlen(pv), SYM_TYPE);
            for (int m = 2; m <= 4; m++) {
                const char *mat = en_fmt(p->a, "%s%dx%d", scalars[i], n, m);
                global_put(p, mat, (int)strlen(mat), SYM_TYPE);
            }
        }
    }
    for (size_t i = 0; i < EN_COUNT(others); i++)
        global_put(p, others[i], (int)strlen(others[i]), SYM_TYPE);
    for (size_t i = 0; i < EN_COUNT(type_templates); i++)
        global_put(p, type_templates[i], (int)strlen(type_templates[i]), SYM_TEMPLATE_TYPE);
    for (size_t i = 0; i < EN_COUNT(func_templates); i++)
        global_put(p, func_templates[i], (int)strlen(func_templates[i]), SYM_TEMPLATE_FUNC);
}

/* ---- keywords ------------------------------------------------------------------------- */
static bool is_space_keyword(const en_token *t, ast_addr_space *space) {
    static const struct { const char *name; ast_addr_space space; } spaces[] = {
        {"device", AST_AS_DEVICE}, {"constant", AST_AS_CONSTANT},
        {"threadgroup", AST_AS_THREADGROUP}, {"thread", AST_AS_THREAD},
        {"threadgroup_imageblock", AST_AS_THREADGROUP_IMAGEBLOCK},
        {"ray_data", AST_AS_RAY_DATA}, {"object_data", AST_AS_OBJECT_DATA},
    };
    for (size_t i = 0; i < EN_COUNT(spaces); i++)
        if (tok_is(t, spaces[i].name)) {
            if (space) *space = spaces[i].space;
            return true;
        }
    return false;
}

/* `coherent(device)`, `coherent(system)`: the memory coherence of a device pointer (MSL
 * 3.2; MLX's fence.metal). enigma's device memory is coherent for a whole dispatch on both
 * backends (one process's memory on the CPU; on CUDA a kernel's global stores are visible
 * to later kernels and, with volatile, to other threads), so the qualifier is accepted
 * and carries nothing */
static bool accept_coherent(parser *p) {
    if (!is(p, "coherent") || !is_at(p, 1, "(") || tok_at(p, p->pos + 2)->kind != EN_TK_IDENT ||
        !tok_is(tok_at(p, p->pos + 3), ")"))
        return false;
    const en_token *scope = tok_at(p, p->pos + 2);
    if (!tok_is(scope, "device") && !tok_is(scope, "system") && !tok_is(scope, "threadgroup"))
        error_at(p, scope->loc, "coherent() takes device, threadgroup or system");
    for (int i = 0; i < 4; i++) advance(p);
    return true;
}

static bool is_cv_keyword(const en_token *t) {
    return tok_is(t, "const") || tok_is(t, "volatile") || tok_is(t, "restrict") ||
           tok_is(t, "__restrict");
}

static bool is_multiword_start(const en_token *t) {
    return tok_is(t, "unsigned") || tok_is(t, "signed") || tok_is(t, "short") || tok_is(t, "long");
}

/* words that can only start a declaration (never an expression) */
static bool is_decl_keyword(const en_token *t) {
    static const char *const words[] = {
        "static", "constexpr", "inline", "typedef", "using", "template", "static_assert",
        "extern", "kernel", "vertex", "fragment", "struct", "class", "union", "enum",
        "typename", "auto", "double", "unsigned", "signed", "__attribute__", "namespace",
        "virtual", "friend", "mutable", "explicit", "register", "thread_local", "alignas",
        "decltype",
    };
    if (t->kind != EN_TK_IDENT) return false;
    for (size_t i = 0; i < EN_COUNT(words); i++)
        if (tok_is(t, words[i])) return true;
    return is_cv_keyword(t) || is_space_keyword(t, NULL);
}

/* words never taken as a declared name */
static bool is_reserved(const en_token *t) {
    static const char *const words[] = {
        "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
        "return", "goto", "sizeof", "alignof", "true", "false", "this", "static_cast",
        "reinterpret_cast", "const_cast", "dynamic_cast", "new", "delete", "try", "catch",
        "throw", "operator",
    };
    for (size_t i = 0; i < EN_COUNT(words); i++)
        if (tok_is(t, words[i])) return true;
    return is_decl_keyword(t);
}

/* ---- lookahead scanners (no nodes built; linear) ----------------------------------------
 * These answer "is a type written here?" before committing to a parse. */

static int scan_type(parser *p, int i);

/* does '<' at token i open template arguments of the name before it? Yes after a known
 * template; also after any other name when a type follows the '<' and then '>' or ','
 * (`max<float>(a, b)`), since a type cannot be compared */
static bool opens_targs(parser *p, int i, sym_kind kind) {
    if (!tok_is(tok_at(p, i), "<")) return false;
    if (kind_is_template(kind)) return true;
    if (kind == SYM_TYPE || kind == SYM_VALUE) return false;
    int j = scan_type(p, i + 1);
    if (j < 0) return false;
    const en_token *after = tok_at(p, j);
    return tok_is(after, ">") || tok_is(after, ",") || tok_is(after, ">>");
}

/* skips a balanced <...> from the '<' at token i; returns the index after it or -1 */
static int scan_angles(parser *p, int i) {
    int angle = 0, paren = 0;
    for (;; i++) {
        const en_token *t = tok_at(p, i);
        if (t->kind == EN_TK_EOF || tok_is(t, ";") || tok_is(t, "{") || tok_is(t, "}")) return -1;
        if (tok_is(t, "(") || tok_is(t, "[")) paren++;
        else if (tok_is(t, ")") || tok_is(t, "]")) {
            if (--paren < 0) return -1;
        } else if (paren == 0) {
            if (tok_is(t, "<")) angle++;
            else if (tok_is(t, ">")) angle--;
            else if (tok_is(t, ">>")) {
                /* `Init<cplx<float>>::v`: its second '>' closes an outer list, so this one
                 * ends inside the token: the caller sees the '>>' next, as the '>' it is */
                if (angle == 1) return i;
                angle -= 2;
            }
            if (angle <= 0) return i + 1;
        }
    }
}

/* name = "::"? ident targs? ("::" ident targs?)* ; *last = the last ident's index */
static int scan_name(parser *p, int i, int *last) {
    if (tok_is(tok_at(p, i), "::")) i++;
    for (;;) {
        const en_token *t = tok_at(p, i);
        if (t->kind != EN_TK_IDENT || is_reserved(t)) return -1;
        *last = i++;
        if (opens_targs(p, i, lookup_tok(p, t))) {
            i = scan_angles(p, i);
            if (i < 0) return -1;
        }
        if (tok_is(tok_at(p, i), "::") && tok_at(p, i + 1)->kind == EN_TK_IDENT) {
            i++;
            continue;
        }
        return i;
    }
}

/* does a known type name (possibly qualified) start at token i? Returns the index after
 * the name or -1 */
static int scan_type_name(parser *p, int i) {
    int last = -1;
    int j = scan_name(p, i, &last);
    if (j < 0 || !kind_is_type(lookup_tok(p, tok_at(p, last)))) return -1;
    return j;
}

/* type = (cv | space | keyword)* type-name? abstract-declarator ; returns the index
 * after it, or -1 when no type is written at i */
static int scan_type(parser *p, int i) {
    bool saw_type = false;
    for (;;) {
        const en_token *t = tok_at(p, i);
        if (is_cv_keyword(t) || is_space_keyword(t, NULL)) {
            i++;
        } else if (tok_is(t, "struct") || tok_is(t, "class") || tok_is(t, "union") ||
                   tok_is(t, "enum") || tok_is(t, "typename")) {
            int last;
            i = scan_name(p, i + 1, &last);
            if (i < 0) return -1;
            saw_type = true;
        } else if (is_multiword_start(t) || tok_is(t, "auto") || tok_is(t, "double")) {
            i++;
            saw_type = true;
        } else if (!saw_type && tok_is(t, "decltype") && tok_is(tok_at(p, i + 1), "(")) {
            /* decltype(expr): a type, e.g. a template argument remove_cv_t<decltype(x)> */
            int depth = 0;
            do {
                const en_token *u = tok_at(p, ++i);
                if (u->kind == EN_TK_EOF || tok_is(u, ";") || tok_is(u, "{")) return -1;
                if (tok_is(u, "(")) depth++;
                else if (tok_is(u, ")")) depth--;
            } while (depth > 0);
            i++;
            saw_type = true;
        } else if (saw_type && (tok_is(t, "int") || tok_is(t, "char") || tok_is(t, "long") ||
                                tok_is(t, "short"))) {
            i++;
        } else if (!saw_type && t->kind == EN_TK_IDENT) {
            int j = scan_type_name(p, i);
            if (j < 0) return -1;
            i = j;
            saw_type = true;
        } else {
            break;
        }
    }
    if (!saw_type) return -1;
    for (;;) {
        const en_token *t = tok_at(p, i);
        if (tok_is(t, "*") || tok_is(t, "&") || tok_is(t, "&&") || is_cv_keyword(t) ||
            is_space_keyword(t, NULL)) {
            i++;
        } else if (tok_is(t, "[")) {
            int depth = 0;
            do {
                const en_token *u = tok_at(p, i);
                if (u->kind == EN_TK_EOF || tok_is(u, ";") || tok_is(u, "{")) return -1;
                if (tok_is(u, "[")) depth++;
                else if (tok_is(u, "]")) depth--;
                i++;
            } while (depth > 0);
        } else {
            return i;
        }
    }
}

/* is a type written at the current token? */
static bool starts_type(parser *p) { return !p->split_gt && scan_type(p, p->pos) >= 0; }

/* does the statement at the current token declare something? */
static bool starts_declaration(parser *p) {
    const en_token *t = peek(p);
    if (p->split_gt) return false;
    if (is(p, "[") && is_at(p, 1, "[")) return true;
    if (tok_is(t, "[[")) return true;
    if (is_decl_keyword(t)) return true;
    if (t->kind != EN_TK_IDENT && !tok_is(t, "::")) return false;
    int j = scan_type_name(p, p->pos);
    if (j < 0) return false;
    /* float4(a, b).x; and Foo{1}; are expressions that begin with a type, but
     * float (*f)(float) declares a function pointer (to be rejected) */
    const en_token *after = tok_at(p, j);
    if (tok_is(after, "(") && (tok_is(tok_at(p, j + 1), "*") || tok_is(tok_at(p, j + 1), "^")))
        return true;
    if (tok_is(after, "(") || tok_is(after, "{") || tok_is(after, ".") || tok_is(after, "->"))
        return false;
    return true;
}

/* ---- forward declarations --------------------------------------------------------------- */
typedef enum decl_ctx { CTX_TOP, CTX_MEMBER, CTX_BLOCK, CTX_PARAM } decl_ctx;

static ast_expr *parse_expr(parser *p);
static void parse_params(parser *p, ast_params *out);
static ast_expr *parse_assign(parser *p);
static ast_expr *parse_cond(parser *p);
static ast_expr *parse_unary(parser *p);
static ast_expr *parse_init_list(parser *p);
static ast_type *parse_type(parser *p);
static ast_stmt *parse_stmt(parser *p);
static ast_stmt *parse_compound(parser *p);
static void parse_declaration(parser *p, ast_decls *out, decl_ctx ctx);
static ast_name parse_name(parser *p);
static const char *parse_operator_name(parser *p);

/* ---- attributes --------------------------------------------------------------------------- */
static bool at_attr_start(parser *p) {
    return !p->split_gt && (is(p, "[[") || (is(p, "[") && is_at(p, 1, "[")));
}

/* rejects attributes of features enigma leaves out, by name; true if `a` was one. The
 * rejected attribute is left out of the tree, so the checker neither reports it again
 * nor treats the declaration as something it is not. */
static bool reject_attr(parser *p, const ast_attr *a) {
    static const struct { const char *name; const char *message; } rejected[] = {
        {"stage_in", "[[stage_in]] is not supported by enigma (vertex and fragment functions are not supported)"},
        {"position", "[[position]] is not supported by enigma (vertex and fragment functions are not supported)"},
        {"vertex", "vertex functions are not supported by enigma"},
        {"fragment", "fragment functions are not supported by enigma"},
        {"visible", "visible functions are not supported by enigma"},
        {"intersection", "intersection functions are not supported by enigma"},
        {"mesh", "mesh functions are not supported by enigma"},
        {"object", "object functions are not supported by enigma"},
        {"texture", "textures are not supported by enigma"},
        {"sampler", "samplers are not supported by enigma"},
        {"color", "[[color]] is not supported by enigma (fragment functions are not supported)"},
        {"vertex_id", "[[vertex_id]] is not supported by enigma (vertex functions are not supported)"},
        {"instance_id", "[[instance_id]] is not supported by enigma (vertex functions are not supported)"},
        {"imageblock_data", "imageblocks are not supported by enigma"},
        {"payload", "mesh shaders are not supported by enigma"},
    };
    for (size_t i = 0; i < EN_COUNT(rejected); i++)
        if (strcmp(a->name, rejected[i].name) == 0) {
            error_at(p, a->loc, "%s", rejected[i].message);
            return true;
        }
    return false;
}

// attributes = ("[[" (attr ("," attr)*)? "]]")+
// attr = ident ("::" ident)? ("(" (assign ("," assign)*)? ")")?
static void parse_attrs(parser *p, ast_attrs *out) {
    while (at_attr_start(p)) {
        if (!accept(p, "[[")) {
            advance(p);
            advance(p);
        }
        bool saved_targs = p->in_targs;
        p->in_targs = false;
        while (!is(p, "]") && !is(p, "]]") && peek(p)->kind != EN_TK_EOF) {
            ast_attr a = {0};
            a.loc = loc_here(p);
            if (!is_ident(p)) {
                error_at(p, loc_here(p), "expected an attribute name");
                break;
            }
            a.name = tok_str(p, peek(p));
            advance(p);
            if (is(p, "::") && tok_at(p, p->pos + 1)->kind == EN_TK_IDENT) {
                advance(p);
                a.name = en_fmt(p->a, "%s::%s", a.name, tok_str(p, peek(p)));
                advance(p);
            }
            if (accept(p, "(")) {
                a.has_parens = true;
                while (!is(p, ")") && peek(p)->kind != EN_TK_EOF) {
                    int before = p->pos;
                    EN_PUSH(p->a, a.args, parse_assign(p));
                    if (!accept(p, ",")) break;
                    if (p->pos == before) break;
                }
                expect(p, ")");
            }
            if (!reject_attr(p, &a)) EN_PUSH(p->a, *out, a);
            if (!accept(p, ",")) break;
        }
        p->in_targs = saved_targs;
        if (accept(p, "]]")) continue;
        if (is(p, "]") && is_at(p, 1, "]")) {
            advance(p);
            advance(p);
            continue;
        }
        error_at(p, loc_here(p), "expected ']]' to close the attribute");
        /* skip to the closing brackets so the declaration can go on */
        while (peek(p)->kind != EN_TK_EOF && !is(p, "]]") && !is(p, ";") && !is(p, "{") &&
               !(is(p, "]") && is_at(p, 1, "]")))
            advance(p);
        if (!accept(p, "]]") && is(p, "]")) {
            advance(p);
            advance(p);
        }
    }
}

// alignas = "alignas" "(" (type | cond) ")"      kept as the attribute "alignas"
static void parse_alignas(parser *p, ast_attrs *out) {
    ast_attr a = {0};
    a.loc = loc_here(p);
    a.name = "alignas";
    a.has_parens = true;
    advance(p);
    if (!expect(p, "(")) return;
    bool saved = p->in_targs;
    p->in_targs = false;
    int j = scan_type(p, p->pos);
    if (j >= 0 && tok_is(tok_at(p, j), ")")) {
        /* alignas(T) means alignas(alignof(T)) */
        ast_expr *e = new_expr(p, AST_EXPR_ALIGNOF, loc_here(p));
        e->type = parse_type(p);
        EN_PUSH(p->a, a.args, e);
    } else {
        EN_PUSH(p->a, a.args, parse_cond(p));
    }
    p->in_targs = saved;
    expect(p, ")");
    EN_PUSH(p->a, *out, a);
}

/* skips GNU __attribute__((...)), which headers written for Metal use */
static void skip_gnu_attribute(parser *p) {
    advance(p);
    if (is(p, "(")) skip_balanced(p);
}

/* ---- names and template arguments --------------------------------------------------------- */
// targ = type | cond
static ast_targ parse_targ(parser *p) {
    ast_targ a = {0};
    a.loc = loc_here(p);
    if (starts_type(p)) a.type = parse_type(p);
    else a.expr = parse_cond(p);
    a.pack_expansion = accept(p, "...");
    return a;
}

// targs = "<" (targ ("," targ)*)? ">"
static void parse_targs(parser *p, ast_targs *out) {
    if (!enter(p, "template arguments")) return;
    advance(p); /* '<' */
    bool saved = p->in_targs;
    p->in_targs = true;
    if (!is(p, ">") && !tok_is(peek(p), ">>")) {
        for (;;) {
            int before = p->pos;
            ast_targ a = parse_targ(p);
            EN_PUSH(p->a, *out, a);
            if (p->pos == before || !accept(p, ",")) break;
        }
    }
    p->in_targs = saved;
    expect_gt(p);
    leave(p);
}

/* skips the template arguments of a rejected type (texture2d<float, access::read>,
 * visible_function_table<float(float)>): they may hold what enigma does not parse */
static void skip_rejected_targs(parser *p) {
    int angle = 0, paren = 0;
    while (peek(p)->kind != EN_TK_EOF && !is(p, ";") && !is(p, "{") && !is(p, "}")) {
        if (is(p, "(") || is(p, "[")) paren++;
        else if (is(p, ")") || is(p, "]")) {
            if (--paren < 0) return;
        } else if (paren == 0 && is(p, "<")) angle++;
        else if (paren == 0 && is(p, ">")) angle--;
        else if (paren == 0 && is(p, ">>")) {
            if (angle == 1) { /* the second '>' closes an outer list */
                p->split_gt = true;
                return;
            }
            angle -= 2;
        }
        advance(p);
        if (angle <= 0) return;
    }
}

// name = "::"? ident targs? ("::" ident targs?)*
static ast_name parse_name(parser *p) {
    ast_name n = {0};
    EN_VEC(ast_name_part) parts = {0};
    n.loc = loc_here(p);
    if (accept(p, "::")) n.global = true;
    for (;;) {
        if (parts.count > 0 && is(p, "operator")) {
            /* S::operator()(...) defined outside S: the operator's name is the last part */
            ast_name_part part = {.loc = loc_here(p)};
            part.ident = parse_operator_name(p);
            EN_PUSH(p->a, parts, part);
            break;
        }
        if (!is_ident(p)) {
            error_at(p, loc_here(p), "expected an identifier before %s", tok_desc(p, peek(p)));
            break;
        }
        ast_name_part part = {0};
        part.loc = loc_here(p);
        const en_token *t = peek(p);
        part.ident = tok_str(p, t);
        sym_kind kind = lookup_tok(p, t);
        advance(p);
        if (kind == SYM_UNSUPPORTED && is(p, "<")) {
            skip_rejected_targs(p);
        } else if (!p->split_gt && opens_targs(p, p->pos, kind)) {
            part.has_targs = true;
            parse_targs(p, &part.targs);
        }
        EN_PUSH(p->a, parts, part);
        if (is(p, "::") && tok_at(p, p->pos + 1)->kind == EN_TK_IDENT) {
            advance(p);
            if (accept(p, "template")) {} /* Foo::template bar<T> */
            continue;
        }
        break;
    }
    if (parts.count == 0) {
        ast_name_part part = {0};
        part.loc = n.loc;
        part.ident = "<error>";
        EN_PUSH(p->a, parts, part);
    }
    n.parts = parts.items;
    n.count = parts.count;
    if (n.count == 0) { /* out of memory: the rest of the parser still wants one part */
        static ast_name_part oom_part = {.ident = "<error>"};
        n.parts = &oom_part;
        n.count = 1;
    }
    return n;
}

/* ---- types -------------------------------------------------------------------------------- */
typedef struct decl_specs {
    unsigned specs;
    ast_attrs attrs;
    ast_type *type;       /* NULL when no type was written */
    unsigned quals;
    ast_addr_space space;
    en_loc loc;
    bool defined_tag;     /* a struct/enum body was written: `struct S {...}` */
} decl_specs;

/* reports the first part of a name that enigma rejects; true if one was */
static bool reject_unsupported_name(parser *p, const ast_name *n) {
    for (int i = 0; i < n->count; i++) {
        const char *id = n->parts[i].ident;
        const char *msg = unsupported_type_message(id, (int)strlen(id));
        if (msg) {
            error_at(p, n->parts[i].loc, "%s", msg);
            return true;
        }
    }
    return false;
}

// builtin-multiword = ("unsigned" | "signed" | "short" | "long" | "int" | "char")+
static ast_type *parse_multiword_type(parser *p) {
    en_loc loc = loc_here(p);
    bool is_unsigned = false, is_signed = false;
    int longs = 0, shorts = 0, chars = 0;
    for (;;) {
        if (accept(p, "unsigned")) is_unsigned = true;
        else if (accept(p, "signed")) is_signed = true;
        else if (accept(p, "long")) longs++;
        else if (accept(p, "short")) shorts++;
        else if (accept(p, "char")) chars++;
        else if (accept(p, "int")) {}
        else break;
    }
    if (is_unsigned && is_signed) error_at(p, loc, "'signed' and 'unsigned' cannot be combined");
    const char *name = chars ? (is_unsigned ? "uchar" : "char")
                     : shorts ? (is_unsigned ? "ushort" : "short")
                     : longs ? (is_unsigned ? "ulong" : "long")
                     : is_unsigned ? "uint" : "int";
    return named_type(p, name, loc);
}

static ast_type *parse_struct_specifier(parser *p, ast_decls *out);
static ast_type *parse_enum_specifier(parser *p, ast_decls *out);

/* function qualifiers of Metal stages enigma leaves out, written as words */
static bool reject_stage_word(parser *p) {
    const en_token *t = peek(p);
    const char *msg = NULL;
    if (tok_is(t, "vertex")) msg = "vertex functions are not supported by enigma";
    else if (tok_is(t, "fragment")) msg = "fragment functions are not supported by enigma";
    else if (tok_is(t, "visible") || tok_is(t, "intersection") || tok_is(t, "mesh") ||
             tok_is(t, "object")) {
        /* only a qualifier when a type follows: these are ordinary names otherwise */
        if (scan_type(p, p->pos + 1) < 0 && !tok_is(tok_at(p, p->pos + 1), "void")) return false;
        msg = tok_is(t, "visible") ? "visible functions are not supported by enigma"
            : tok_is(t, "intersection") ? "intersection functions are not supported by enigma"
            : tok_is(t, "mesh") ? "mesh functions are not supported by enigma"
                                : "object functions are not supported by enigma";
    }
    if (!msg) return false;
    error_at(p, t->loc, "%s", msg);
    advance(p);
    return true;
}

// decltype = "decltype" "(" expr ")"   (the operand is not evaluated; the checker types it)
static ast_type *parse_decltype(parser *p) {
    ast_type *t = new_type(p, AST_TYPE_DECLTYPE, loc_here(p));
    advance(p);
    if (!expect(p, "(")) {
        t->kind = AST_TYPE_ERROR;
        return t;
    }
    bool saved = p->in_targs;
    p->in_targs = false;
    t->decltype_expr = parse_expr(p);
    p->in_targs = saved;
    if (!expect(p, ")")) t->kind = AST_TYPE_ERROR;
    return t;
}

// decl-specs = (attributes | "kernel" | "inline" | "static" | "constexpr" | "extern"
//              | "typedef" | cv | address-space | type-specifier)+
// type-specifier = struct-specifier | enum-specifier | builtin-multiword | "auto"
//                | "typename"? name
static void parse_decl_specs(parser *p, decl_specs *ds, ast_decls *out, bool allow_unknown) {
    memset(ds, 0, sizeof *ds);
    ds->loc = loc_here(p);
    for (;;) {
        const en_token *t = peek(p);
        ast_addr_space space;
        if (p->split_gt || t->kind == EN_TK_EOF) break;
        /* `struct S {...}` then a new declaration: the ';' was forgotten */
        if (ds->defined_tag && ((is_decl_keyword(t) && !is_cv_keyword(t)) ||
                                scan_type_name(p, p->pos) >= 0))
            break;
        if (at_attr_start(p)) {
            parse_attrs(p, &ds->attrs);
            continue;
        }
        if (tok_is(t, "__attribute__")) {
            skip_gnu_attribute(p);
            continue;
        }
        if (tok_is(t, "__extension__")) { /* GNU: silences pedantic warnings; no meaning */
            advance(p);
            continue;
        }
        if (accept_coherent(p)) {
            ds->quals |= AST_Q_VOLATILE; /* (see accept_coherent) */
            continue;
        }
        if (tok_is(t, "alignas") || tok_is(t, "_Alignas")) {
            parse_alignas(p, &ds->attrs);
            continue;
        }
        if (reject_stage_word(p)) continue;
        if (tok_is(t, "kernel")) ds->specs |= AST_SPEC_KERNEL;
        else if (tok_is(t, "inline") || tok_is(t, "__inline") || tok_is(t, "explicit") ||
                 tok_is(t, "friend") || tok_is(t, "mutable") || tok_is(t, "register"))
            ds->specs |= tok_is(t, "inline") || tok_is(t, "__inline") ? AST_SPEC_INLINE : 0;
        else if (tok_is(t, "static") || tok_is(t, "thread_local")) ds->specs |= AST_SPEC_STATIC;
        else if (tok_is(t, "constexpr")) ds->specs |= AST_SPEC_CONSTEXPR;
        else if (tok_is(t, "extern")) ds->specs |= AST_SPEC_EXTERN;
        else if (tok_is(t, "typedef")) ds->specs |= AST_SPEC_TYPEDEF;
        else if (tok_is(t, "virtual")) error_at(p, t->loc, "virtual functions are not supported in Metal");
        else if (tok_is(t, "const")) ds->quals |= AST_Q_CONST;
        else if (tok_is(t, "volatile")) ds->quals |= AST_Q_VOLATILE;
        else if (tok_is(t, "restrict") || tok_is(t, "__restrict")) ds->quals |= AST_Q_RESTRICT;
        else if (is_space_keyword(t, &space)) {
            if (space == AST_AS_THREADGROUP_IMAGEBLOCK)
                error_at(p, t->loc, "imageblocks are not supported by enigma");
            else if (space == AST_AS_RAY_DATA)
                error_at(p, t->loc, "ray tracing is not supported by enigma");
            else if (space == AST_AS_OBJECT_DATA)
                error_at(p, t->loc, "mesh shaders are not supported by enigma");
            else if (ds->space && ds->space != space)
                error_at(p, t->loc, "conflicting address spaces");
            ds->space = space;
        } else if (ds->type) {
            break;
        } else if (tok_is(t, "struct") || tok_is(t, "class") || tok_is(t, "union")) {
            int before = out->count;
            ds->type = parse_struct_specifier(p, out);
            ds->defined_tag = out->count > before && out->items[out->count - 1]->has_body;
            continue;
        } else if (tok_is(t, "enum")) {
            int before = out->count;
            ds->type = parse_enum_specifier(p, out);
            ds->defined_tag = out->count > before && out->items[out->count - 1]->has_body;
            continue;
        } else if (is_multiword_start(t)) {
            ds->type = parse_multiword_type(p);
            continue;
        } else if (tok_is(t, "double")) {
            error_at(p, t->loc, "double is not supported in Metal");
            ds->type = new_type(p, AST_TYPE_ERROR, t->loc);
        } else if (tok_is(t, "decltype")) {
            ds->type = parse_decltype(p);
            continue;
        } else if (tok_is(t, "auto")) {
            ds->type = named_type(p, "auto", t->loc);
        } else if (tok_is(t, "typename") || (t->kind == EN_TK_IDENT && !is_reserved(t)) ||
                   tok_is(t, "::")) {
            bool elaborated = accept(p, "typename");
            int last = -1;
            int j = scan_name(p, p->pos, &last);
            bool known = j >= 0 && kind_is_type(lookup_tok(p, tok_at(p, last)));
            /* an unknown name is a type only where nothing else can be written: at the
             * start of a program-scope declaration or a parameter, before a declarator */
            if (!known && !elaborated) {
                const en_token *after = j >= 0 ? tok_at(p, j) : t;
                bool declarator_follows = j >= 0 && (after->kind == EN_TK_IDENT ||
                                                     tok_is(after, "*") || tok_is(after, "&"));
                if (!(allow_unknown && declarator_follows)) break;
            }
            ast_type *ty = new_type(p, AST_TYPE_NAME, t->loc);
            ty->name = parse_name(p);
            ty->elaborated = elaborated;
            if (reject_unsupported_name(p, &ty->name)) ty->kind = AST_TYPE_ERROR;
            /* already reported as "unknown type name": the checker stays silent */
            if (!known && p->unknown_type_ok) ty->kind = AST_TYPE_ERROR;
            ds->type = ty;
            continue;
        } else {
            break;
        }
        advance(p);
    }
    if (ds->type && ds->type->kind == AST_TYPE_NAME) {
        /* the qualifiers belong to the named type; copy so a shared struct type from a
         * specifier is not changed */
        ast_type *t = en_alloc(p->a, sizeof *t);
        *t = *ds->type;
        t->quals |= ds->quals;
        if (ds->space) t->space = ds->space;
        ds->type = t;
    }
}

/* the pointer, reference and array parts of a declarator, applied to `base` */
typedef struct declarator {
    ast_type *type;
    const char *name;
    en_loc loc;
    ast_name qual_name;   /* Foo::bar for an out-of-line member */
    ast_name spec_name;   /* f<float> of an explicit specialization */
    ast_attrs attrs;
    bool is_operator;
    bool is_func_ptr;
} declarator;

// ptr-ops = ("*" (cv | address-space)* | "&" | "&&")*
static ast_type *parse_ptr_ops(parser *p, ast_type *base) {
    int links = 0;
    for (;;) {
        if ((is(p, "*") || is(p, "&") || is(p, "&&")) && !link_chain(p, &links, "declarator")) break;
        if (is(p, "*")) {
            ast_type *t = new_type(p, AST_TYPE_POINTER, loc_here(p));
            advance(p);
            t->base = base;
            for (;;) {
                ast_addr_space space;
                if (accept(p, "const")) t->quals |= AST_Q_CONST;
                else if (accept(p, "volatile")) t->quals |= AST_Q_VOLATILE;
                else if (accept_coherent(p)) continue;
                else if (accept(p, "restrict") || accept(p, "__restrict")) t->quals |= AST_Q_RESTRICT;
                else if (is_space_keyword(peek(p), &space)) {
                    t->space = space;
                    advance(p);
                } else break;
            }
            base = t;
        } else if (is(p, "&") || is(p, "&&")) {
            ast_type *t = new_type(p, AST_TYPE_REF, loc_here(p));
            t->is_rvalue_ref = is(p, "&&");
            advance(p);
            t->base = base;
            base = t;
        } else {
            break;
        }
    }
    p->links -= links;
    return base;
}

// array-dims = ("[" cond? "]")*
static ast_type *parse_array_dims(parser *p, ast_type *base) {
    EN_VEC(ast_type *) dims = {0};
    int links = 0;
    while (is(p, "[") && !is_at(p, 1, "[") && link_chain(p, &links, "declarator")) {
        ast_type *t = new_type(p, AST_TYPE_ARRAY, loc_here(p));
        advance(p);
        bool saved = p->in_targs;
        p->in_targs = false;
        if (!is(p, "]")) t->dim = parse_expr(p);
        p->in_targs = saved;
        expect(p, "]");
        EN_PUSH(p->a, dims, t);
    }
    /* int a[2][3] is an array of 2 arrays of 3: wrap from the innermost out */
    for (int i = dims.count - 1; i >= 0; i--) {
        dims.items[i]->base = base;
        base = dims.items[i];
    }
    p->links -= links;
    return base;
}

/* an operator function's name: operator+, operator[], operator() ... */
static const char *parse_operator_name(parser *p) {
    advance(p); /* operator */
    if (is(p, "(") && is_at(p, 1, ")")) {
        advance(p);
        advance(p);
        return "operator()";
    }
    if (is(p, "[") && is_at(p, 1, "]")) {
        advance(p);
        advance(p);
        return "operator[]";
    }
    if (peek(p)->kind == EN_TK_PUNCT) {
        const char *s = en_fmt(p->a, "operator%s", tok_str(p, peek(p)));
        advance(p);
        return s;
    }
    if (starts_type(p)) { /* conversion operator: operator float() */
        ast_type *t = parse_type(p);
        en_buf b = {0};
        ast_type_print(t, &b);
        const char *s = en_fmt(p->a, "operator %s", b.data ? b.data : "");
        en_buf_free(&b);
        return s;
    }
    error_at(p, loc_here(p), "expected an operator after 'operator'");
    return "operator";
}

// declarator = ptr-ops (name | "(" "*" ... ")" ...)? attributes? array-dims attributes?
static void parse_declarator(parser *p, ast_type *base, declarator *d, bool abstract_ok) {
    memset(d, 0, sizeof *d);
    d->loc = loc_here(p);
    d->type = parse_ptr_ops(p, base);
    d->loc = loc_here(p);
    if (is(p, "(") && (is_at(p, 1, "*") || is_at(p, 1, "^") || is_at(p, 1, "&"))) {
        /* (*name)(...) is a function pointer, (*name)[N] / (&name)[N] points to an array */
        int j = p->pos;
        int depth = 0;
        do {
            const en_token *u = tok_at(p, j);
            if (u->kind == EN_TK_EOF) break;
            if (tok_is(u, "(")) depth++;
            else if (tok_is(u, ")")) depth--;
            j++;
        } while (depth > 0);
        if (tok_is(tok_at(p, j), "[") && (is_at(p, 1, "&") || is_at(p, 1, "*")) &&
            tok_at(p, p->pos + 2)->kind == EN_TK_IDENT && tok_is(tok_at(p, p->pos + 3), ")")) {
            /* thread T (&vals)[N] (MLX's sort): a reference (or pointer) to an array */
            bool ref = is_at(p, 1, "&");
            advance(p);
            advance(p);
            d->loc = loc_here(p);
            d->name = tok_str(p, peek(p));
            advance(p);
            advance(p); /* ) */
            ast_type *arr = parse_array_dims(p, d->type);
            ast_type *t = new_type(p, ref ? AST_TYPE_REF : AST_TYPE_POINTER, d->loc);
            t->base = arr;
            d->type = t;
            return;
        }
        if (tok_is(tok_at(p, j), "["))
            error_at(p, loc_here(p), "pointers and references to arrays are not supported by enigma");
        else
            error_at(p, loc_here(p),
                     "a function pointer here is not supported: enigma resolves function pointers while "
                     "compiling, so one can only be a template parameter whose argument names a function");
        d->is_func_ptr = true;
        skip_balanced(p);
        if (is(p, "(")) skip_balanced(p);
        d->type = new_type(p, AST_TYPE_ERROR, d->loc);
        return;
    }
    if (is(p, "operator")) {
        d->name = parse_operator_name(p);
        d->is_operator = true;
    } else if (is_ident(p) && !is_reserved(peek(p))) {
        if (is_at(p, 1, "<") && kind_is_template(lookup_tok(p, peek(p)))) {
            /* template<> float f<float>(float x) — an explicit specialization; template<>
             * bool S<float>::f() — one of a member of class template instance S<float>,
             * a definition of that instance's member */
            ast_name n = parse_name(p);
            d->name = ast_name_last(&n);
            if (n.count > 1 && !n.parts[n.count - 1].has_targs) d->qual_name = n;
            else d->spec_name = n;
        } else if (is_at(p, 1, "::")) {
            d->qual_name = parse_name(p);
            d->name = ast_name_last(&d->qual_name);
            if (d->qual_name.count <= 1) d->qual_name = (ast_name){0};
        } else {
            d->name = tok_str(p, peek(p));
            advance(p);
        }
    } else if (is(p, "~") && tok_at(p, p->pos + 1)->kind == EN_TK_IDENT) {
        error_at(p, loc_here(p), "destructors are not supported by enigma");
        advance(p);
        d->name = en_fmt(p->a, "~%s", tok_str(p, peek(p)));
        advance(p);
    } else if (!abstract_ok) {
        error_at(p, loc_here(p), "expected a name in the declaration before %s",
                 tok_desc(p, peek(p)));
    }
    parse_attrs(p, &d->attrs);
    d->type = parse_array_dims(p, d->type);
    parse_attrs(p, &d->attrs);
}

// type = decl-specs abstract-declarator     (in casts, template arguments, sizeof)
/* a type; the struct or enum it defines, if any (`using t = union {...};`), goes to `defs`
 * when given */
static ast_type *parse_type_defining(parser *p, ast_decls *defs) {
    if (!enter(p, "type")) return new_type(p, AST_TYPE_ERROR, loc_here(p));
    decl_specs ds;
    ast_decls ignored = {0};
    parse_decl_specs(p, &ds, defs ? defs : &ignored, false);
    ast_type *t = ds.type;
    if (!t) {
        error_at(p, loc_here(p), "expected a type before %s", tok_desc(p, peek(p)));
        t = new_type(p, AST_TYPE_ERROR, loc_here(p));
    }
    t = parse_ptr_ops(p, t);
    t = parse_array_dims(p, t);
    leave(p);
    return t;
}

static ast_type *parse_type(parser *p) { return parse_type_defining(p, NULL); }

// struct-specifier = ("struct" | "class" | "union") attributes? name? (":" bases)?
//                    ("{" member* "}")?
static ast_type *parse_struct_specifier(parser *p, ast_decls *out) {
    en_loc kw_loc = loc_here(p);
    bool is_union = is(p, "union"), is_class = is(p, "class");
    advance(p);
    ast_decl *d = new_decl(p, AST_DECL_STRUCT, kw_loc);
    d->is_union = is_union;
    d->is_class = is_class;
    parse_attrs(p, &d->attrs);
    if (is(p, "alignas")) parse_alignas(p, &d->attrs);
    parse_attrs(p, &d->attrs);
    ast_type *ty;
    if (is_ident(p) && !is_reserved(peek(p))) {
        d->loc = loc_here(p);
        ty = new_type(p, AST_TYPE_NAME, loc_here(p));
        ty->name = parse_name(p);
        d->name = ast_name_last(&ty->name);
        if (reject_unsupported_name(p, &ty->name)) ty->kind = AST_TYPE_ERROR;
        if (ty->name.parts[ty->name.count - 1].has_targs && (is(p, "{") || is(p, ":")))
            d->spec_name = ty->name; /* template <...> struct S<args> {...}: a specialization */
    } else {
        d->name = en_fmt(p->a, "__anonymous_struct_%d", ++p->anon_count);
        ty = named_type(p, d->name, kw_loc);
    }
    ty->elaborated = true;
    accept(p, "final");
    if (!is(p, "{") && !is(p, ":")) {
        /* a reference (struct Foo x) or a forward declaration (struct Foo;) */
        if (is(p, ";")) {
            d->has_body = false;
            declare(p, d->name, SYM_TYPE);
            EN_PUSH(p->a, *out, d);
        }
        return ty;
    }
    declare(p, d->name, p->template_pending ? SYM_TEMPLATE_TYPE : SYM_TYPE);
    p->template_pending = false; /* members are not templates unless they say so */
    if (accept(p, ":")) {
        /* base classes: `: public B, C<T>` (access specifiers carry nothing in MSL) */
        for (;;) {
            while (accept(p, "public") || accept(p, "private") || accept(p, "protected")) {}
            if (accept(p, "virtual")) error_at(p, loc_here(p), "virtual base classes are not supported in Metal");
            ast_type *base = parse_type(p);
            EN_PUSH(p->a, d->bases, base);
            if (!accept(p, ",")) break;
        }
        if (!is(p, "{")) {
            error_at(p, loc_here(p), "expected '{' after the base classes of '%s'", d->name ? d->name : "?");
            while (!is(p, "{") && !is(p, ";") && peek(p)->kind != EN_TK_EOF) advance(p);
            if (!is(p, "{")) return ty;
        }
    }
    if (!enter(p, "struct definitions")) return ty;
    advance(p); /* '{' */
    d->has_body = true;
    const char *saved_struct = p->struct_name;
    /* constructors are named like the struct (a refused specialization's too) */
    p->struct_name = ty->kind == AST_TYPE_NAME || !ty->name.count ? d->name : ast_name_last(&ty->name);
    while (!is(p, "}") && peek(p)->kind != EN_TK_EOF) {
        int before = p->pos;
        if ((is(p, "public") || is(p, "private") || is(p, "protected")) && is_at(p, 1, ":")) {
            advance(p);
            advance(p);
            continue;
        }
        if (accept(p, ";")) continue;
        if (peek(p)->kind == EN_TK_PRAGMA) {
            advance(p);
            continue;
        }
        parse_declaration(p, &d->members, CTX_MEMBER);
        if (p->pos == before) advance(p);
    }
    p->struct_name = saved_struct;
    expect(p, "}");
    leave(p);
    EN_PUSH(p->a, *out, d);
    return ty;
}

// enum-specifier = "enum" ("class" | "struct")? name? (":" type)?
//                  ("{" (enumerator ("," enumerator)* ","?)? "}")?
// enumerator = ident ("=" cond)?
static ast_type *parse_enum_specifier(parser *p, ast_decls *out) {
    en_loc kw_loc = loc_here(p);
    advance(p);
    ast_decl *d = new_decl(p, AST_DECL_ENUM, kw_loc);
    if (accept(p, "class") || accept(p, "struct")) d->is_scoped = true;
    parse_attrs(p, &d->attrs);
    ast_type *ty;
    if (is_ident(p) && !is_reserved(peek(p))) {
        d->loc = loc_here(p);
        ty = new_type(p, AST_TYPE_NAME, loc_here(p));
        ty->name = parse_name(p);
        d->name = ast_name_last(&ty->name);
    } else {
        d->name = en_fmt(p->a, "__anonymous_enum_%d", ++p->anon_count);
        ty = named_type(p, d->name, kw_loc);
    }
    ty->elaborated = true;
    declare(p, d->name, SYM_TYPE);
    if (accept(p, ":")) d->type = parse_type(p);
    if (!is(p, "{")) {
        if (is(p, ";")) EN_PUSH(p->a, *out, d);
        return ty;
    }
    advance(p);
    d->has_body = true;
    while (!is(p, "}") && peek(p)->kind != EN_TK_EOF) {
        ast_enumerator en = {0};
        en.loc = loc_here(p);
        if (!is_ident(p)) {
            error_at(p, loc_here(p), "expected an enumerator name before %s", tok_desc(p, peek(p)));
            while (!is(p, "}") && !is(p, ";") && peek(p)->kind != EN_TK_EOF) advance(p);
            break;
        }
        en.name = tok_str(p, peek(p));
        advance(p);
        if (accept(p, "=")) en.value = parse_cond(p);
        EN_PUSH(p->a, d->enumerators, en);
        if (!accept(p, ",")) break;
    }
    expect(p, "}");
    EN_PUSH(p->a, *out, d);
    return ty;
}

/* ---- expressions ---------------------------------------------------------------------- */
// expr = assign ("," assign)*
static ast_expr *parse_expr(parser *p) {
    ast_expr *e = parse_assign(p);
    int links = 0;
    while (is(p, ",") && !p->in_targs && link_chain(p, &links, "expression")) {
        ast_expr *b = new_expr(p, AST_EXPR_BINARY, loc_here(p));
        advance(p);
        b->op = AST_OP_COMMA;
        b->lhs = e;
        b->rhs = parse_assign(p);
        e = b;
    }
    p->links -= links;
    return e;
}

static bool assign_op(parser *p, ast_op *op) {
    static const struct { const char *s; ast_op op; } ops[] = {
        {"=", AST_OP_NONE}, {"+=", AST_OP_ADD}, {"-=", AST_OP_SUB}, {"*=", AST_OP_MUL},
        {"/=", AST_OP_DIV}, {"%=", AST_OP_MOD}, {"&=", AST_OP_BITAND}, {"|=", AST_OP_BITOR},
        {"^=", AST_OP_BITXOR}, {"<<=", AST_OP_SHL}, {">>=", AST_OP_SHR},
    };
    if (p->split_gt) return false;
    for (size_t i = 0; i < EN_COUNT(ops); i++)
        if (tok_is(peek(p), ops[i].s)) {
            if (p->in_targs && ops[i].op == AST_OP_SHR) return false;
            *op = ops[i].op;
            return true;
        }
    return false;
}

// assign = cond (assign-op (assign | init-list))?
static ast_expr *parse_assign(parser *p) {
    if (!enter(p, "expression")) return error_expr(p);
    ast_expr *e = parse_cond(p);
    ast_op op;
    if (assign_op(p, &op)) {
        ast_expr *a = new_expr(p, AST_EXPR_ASSIGN, loc_here(p));
        advance(p);
        a->op = op;
        a->lhs = e;
        a->rhs = is(p, "{") ? parse_init_list(p) : parse_assign(p);
        e = a;
    }
    leave(p);
    return e;
}

static int binary_prec(parser *p, ast_op *op) {
    static const struct { const char *s; ast_op op; int prec; } ops[] = {
        {"||", AST_OP_LOGOR, 1}, {"&&", AST_OP_LOGAND, 2}, {"|", AST_OP_BITOR, 3},
        {"^", AST_OP_BITXOR, 4}, {"&", AST_OP_BITAND, 5}, {"==", AST_OP_EQ, 6},
        {"!=", AST_OP_NE, 6}, {"<", AST_OP_LT, 7}, {">", AST_OP_GT, 7}, {"<=", AST_OP_LE, 7},
        {">=", AST_OP_GE, 7}, {"<<", AST_OP_SHL, 8}, {">>", AST_OP_SHR, 8},
        {"+", AST_OP_ADD, 9}, {"-", AST_OP_SUB, 9}, {"*", AST_OP_MUL, 10},
        {"/", AST_OP_DIV, 10}, {"%", AST_OP_MOD, 10},
    };
    if (p->split_gt) return 0;
    const en_token *t = peek(p);
    if (t->kind != EN_TK_PUNCT) return 0;
    for (size_t i = 0; i < EN_COUNT(ops); i++)
        if (tok_is(t, ops[i].s)) {
            /* inside template arguments '>' and '>>' close the list */
            if (p->in_targs && (ops[i].op == AST_OP_GT || ops[i].op == AST_OP_SHR)) return 0;
            *op = ops[i].op;
            return ops[i].prec;
        }
    return 0;
}

// binary = unary (binary-op unary)*, by precedence climbing over C's ten levels
static ast_expr *parse_binary(parser *p, int min_prec) {
    ast_expr *lhs = parse_unary(p);
    int links = 0;
    for (;;) {
        ast_op op = AST_OP_NONE;
        int prec = binary_prec(p, &op);
        if (prec == 0 || prec < min_prec || !link_chain(p, &links, "expression")) {
            p->links -= links;
            return lhs;
        }
        ast_expr *b = new_expr(p, AST_EXPR_BINARY, loc_here(p));
        advance(p);
        b->op = op;
        b->lhs = lhs;
        b->rhs = parse_binary(p, prec + 1);
        lhs = b;
    }
}

// cond = binary ("?" expr ":" assign)?
static ast_expr *parse_cond(parser *p) {
    ast_expr *c = parse_binary(p, 1);
    if (!is(p, "?")) return c;
    ast_expr *e = new_expr(p, AST_EXPR_COND, loc_here(p));
    advance(p);
    e->cond = c;
    bool saved = p->in_targs;
    p->in_targs = false;
    e->lhs = parse_expr(p);
    p->in_targs = saved;
    expect(p, ":");
    e->rhs = parse_assign(p);
    return e;
}

// args = "(" (assign ("," assign)*)? ")"      (init lists allowed as arguments)
static void parse_args(parser *p, ast_exprs *out, const char *close) {
    bool saved = p->in_targs;
    p->in_targs = false;
    while (!is(p, close) && peek(p)->kind != EN_TK_EOF) {
        int before = p->pos;
        EN_PUSH(p->a, *out, is(p, "{") ? parse_init_list(p) : parse_assign(p));
        if (p->pos == before) break;
        if (accept(p, "...")) out->items[out->count - 1]->pack_expansion = true; /* f(us...) */
        if (!accept(p, ",")) break;
    }
    p->in_targs = saved;
    if (!accept(p, close))
        error_at(p, loc_here(p), "expected '%s' before %s", close, tok_desc(p, peek(p)));
}

// init-list = "{" (init ("," init)* ","?)? "}"       init = init-list | assign
static ast_expr *parse_init_list(parser *p) {
    ast_expr *e = new_expr(p, AST_EXPR_INIT_LIST, loc_here(p));
    if (!enter(p, "initializer list")) return e;
    advance(p); /* '{' */
    bool saved = p->in_targs;
    p->in_targs = false;
    while (!is(p, "}") && peek(p)->kind != EN_TK_EOF) {
        int before = p->pos;
        if (is(p, ".") && tok_at(p, p->pos + 1)->kind == EN_TK_IDENT)
            error_at(p, loc_here(p), "designated initializers are not supported by enigma");
        if (is(p, "[") && !is_at(p, 1, "[")) {
            /* [i] = v, or GNU's range [lo ... hi] = v */
            ast_expr *d = new_expr(p, AST_EXPR_DESIGNATOR, loc_here(p));
            advance(p);
            d->lhs = parse_cond(p);
            if (accept(p, "...")) d->rhs = parse_cond(p);
            expect(p, "]");
            expect(p, "=");
            d->operand = is(p, "{") ? parse_init_list(p) : parse_assign(p);
            EN_PUSH(p->a, e->args, d);
            if (p->pos == before || !accept(p, ",")) break;
            continue;
        }
        EN_PUSH(p->a, e->args, is(p, "{") ? parse_init_list(p) : parse_assign(p));
        if (p->pos == before) break;
        if (!accept(p, ",")) break;
    }
    p->in_targs = saved;
    if (!accept(p, "}")) {
        error_at(p, loc_here(p), "expected '}' to end the initializer list before %s",
                 tok_desc(p, peek(p)));
    }
    leave(p);
    return e;
}

static ast_expr *parse_postfix(parser *p, ast_expr *e);

// cast-keyword = ("static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast")
//                "<" type ">" "(" expr ")"
static ast_expr *parse_named_cast(parser *p) {
    ast_expr *e = new_expr(p, AST_EXPR_CAST, loc_here(p));
    if (is(p, "static_cast")) e->cast_kind = AST_CAST_STATIC;
    else if (is(p, "reinterpret_cast")) e->cast_kind = AST_CAST_REINTERPRET;
    else if (is(p, "const_cast")) e->cast_kind = AST_CAST_CONST;
    else {
        error_at(p, loc_here(p), "dynamic_cast is not supported in Metal");
        e->cast_kind = AST_CAST_STATIC;
    }
    advance(p);
    if (!is(p, "<")) {
        error_at(p, loc_here(p), "expected '<' after '%s'", tok_str(p, &p->toks[p->pos - 1]));
        e->kind = AST_EXPR_ERROR;
        return e;
    }
    advance(p);
    bool saved = p->in_targs;
    p->in_targs = true;
    e->type = parse_type(p);
    p->in_targs = saved;
    expect_gt(p);
    if (expect(p, "(")) {
        bool saved2 = p->in_targs;
        p->in_targs = false;
        e->operand = parse_expr(p);
        p->in_targs = saved2;
        expect(p, ")");
    } else {
        e->operand = error_expr(p);
    }
    return e;
}

/* rejects a lambda: [captures](params) { body } */
static ast_expr *reject_lambda(parser *p) {
    ast_expr *e = new_expr(p, AST_EXPR_ERROR, loc_here(p));
    error_at(p, loc_here(p), "lambdas are not supported by enigma");
    skip_balanced(p);
    if (is(p, "(")) skip_balanced(p);
    while (is_ident(p) || is(p, "->") || is(p, "::") || is(p, "*") || is(p, "&")) advance(p);
    if (is(p, "{")) skip_balanced(p);
    return e;
}

// primary = literal | "(" expr ")" | init-list | "this" | "true" | "false"
//         | cast-keyword | type ("(" args ")" | init-list) | name
static ast_expr *parse_primary(parser *p) {
    const en_token *t = peek(p);
    en_loc loc = t->loc;
    if (p->split_gt) {
        error_at(p, loc, "expected an expression before '>'");
        return error_expr(p);
    }
    switch (t->kind) {
    case EN_TK_INT:
    case EN_TK_FLOAT:
    case EN_TK_CHAR: {
        ast_expr *e = new_expr(p, t->kind == EN_TK_INT ? AST_EXPR_INT
                               : t->kind == EN_TK_FLOAT ? AST_EXPR_FLOAT : AST_EXPR_CHAR, loc);
        e->ival = t->ival;
        e->fval = t->fval;
        e->suffix = t->lit_suffix;
        e->text = tok_str(p, t);
        advance(p);
        return e;
    }
    case EN_TK_STRING: {
        ast_expr *e = new_expr(p, AST_EXPR_STRING, loc);
        e->text = tok_str(p, t);
        advance(p);
        while (peek(p)->kind == EN_TK_STRING) { /* "a" "b": adjacent strings join */
            const char *more = tok_str(p, peek(p));
            size_t n = strlen(e->text);
            e->text = en_fmt(p->a, "%.*s%s", (int)(n ? n - 1 : 0), e->text, more[0] ? more + 1 : more);
            advance(p);
        }
        return e;
    }
    case EN_TK_EOF:
        error_at(p, loc, "expected an expression before end of file");
        return error_expr(p);
    case EN_TK_PRAGMA:
        error_at(p, loc, "'#pragma' is not allowed inside an expression");
        return error_expr(p);
    default:
        break;
    }
    if (is(p, "(")) {
        advance(p);
        bool saved = p->in_targs;
        p->in_targs = false;
        ast_expr *e = parse_expr(p);
        p->in_targs = saved;
        e->parenthesized = true;
        if (!accept(p, ")"))
            error_at(p, loc_here(p), "expected ')' before %s", tok_desc(p, peek(p)));
        return e;
    }
    if (is(p, "{")) return parse_init_list(p);
    if (is(p, "[")) return reject_lambda(p);
    if (is(p, "true") || is(p, "false")) {
        ast_expr *e = new_expr(p, AST_EXPR_BOOL, loc);
        e->ival = is(p, "true");
        e->text = tok_str(p, t);
        advance(p);
        return e;
    }
    if (is(p, "this")) {
        advance(p);
        return new_expr(p, AST_EXPR_THIS, loc);
    }
    if (is(p, "decltype") && is_at(p, 1, "(")) {
        /* decltype(x)::kElems: a member of x's type (MLX's steel tiles) */
        ast_type *q = parse_decltype(p);
        if (accept(p, "::") && is_ident(p)) {
            ast_expr *e = new_expr(p, AST_EXPR_NAME, loc);
            e->qualifier = q;
            e->name = parse_name(p);
            return e;
        }
        error_at(p, loc_here(p), "expected '::' and a member name after decltype(...) in an expression");
        return new_expr(p, AST_EXPR_ERROR, loc);
    }
    if (is(p, "operator") && tok_at(p, p->pos + 1)->kind == EN_TK_PUNCT) {
        /* an operator function by name: `return operator>(b, a);` */
        ast_expr *e = new_expr(p, AST_EXPR_NAME, loc);
        ast_name_part part = {.loc = loc, .ident = parse_operator_name(p)};
        e->name.loc = loc;
        e->name.parts = en_alloc(p->a, sizeof part);
        if (e->name.parts) e->name.parts[0] = part;
        e->name.count = 1;
        return e;
    }
    if (is(p, "static_cast") || is(p, "reinterpret_cast") || is(p, "const_cast") ||
        is(p, "dynamic_cast"))
        return parse_named_cast(p);
    if (is(p, "throw")) {
        error_at(p, loc, "cannot use 'throw' with exceptions disabled");
        advance(p);
        if (!is(p, ";") && !is(p, ")")) parse_assign(p);
        return new_expr(p, AST_EXPR_ERROR, loc);
    }
    if (is(p, "new") || is(p, "delete")) {
        bool is_new = is(p, "new");
        error_at(p, loc, "'%s' is not supported in Metal", is_new ? "new" : "delete");
        advance(p);
        /* take what it allocates or frees, so that no second error follows */
        if (is_new) {
            if (starts_type(p)) parse_type(p);
            if (is(p, "(") || is(p, "{")) skip_balanced(p);
        } else {
            if (is(p, "[") && is_at(p, 1, "]")) {
                advance(p);
                advance(p);
            }
            parse_unary(p);
        }
        return new_expr(p, AST_EXPR_ERROR, loc);
    }
    if (is(p, "double")) {
        error_at(p, loc, "double is not supported in Metal");
        advance(p);
        if (is(p, "(")) {
            ast_expr *e = new_expr(p, AST_EXPR_ERROR, loc);
            advance(p);
            parse_args(p, &e->args, ")");
            return e;
        }
        return new_expr(p, AST_EXPR_ERROR, loc);
    }
    /* a type in expression position: a functional cast T(args) or T{args} */
    if (starts_type(p) && !(t->kind == EN_TK_IDENT && scan_type_name(p, p->pos) < 0 &&
                            !is_decl_keyword(t))) {
        int j = scan_type(p, p->pos);
        const en_token *after = tok_at(p, j);
        if (tok_is(after, "(") || tok_is(after, "{")) {
            ast_expr *e = new_expr(p, AST_EXPR_CONSTRUCT, loc);
            e->type = parse_type(p);
            if (is(p, "{")) {
                ast_expr *list = parse_init_list(p);
                e->brace = true;
                e->args = list->args;
            } else {
                advance(p);
                parse_args(p, &e->args, ")");
            }
            return e;
        }
    }
    if (t->kind == EN_TK_IDENT || is(p, "::")) {
        if (t->kind == EN_TK_IDENT && is_reserved(t) && !is(p, "operator")) {
            error_at(p, loc, "expected an expression before %s", tok_desc(p, t));
            return error_expr(p);
        }
        ast_expr *e = new_expr(p, AST_EXPR_NAME, loc);
        e->name = parse_name(p);
        const ast_name_part *last = &e->name.parts[e->name.count - 1];
        if (reject_unsupported_name(p, &e->name)) {
            e->kind = AST_EXPR_ERROR;
            return e;
        }
        /* as_type<T>(x) and metal::as_type<T>(x) become casts */
        if (strcmp(last->ident, "as_type") == 0 && last->has_targs && is(p, "(")) {
            ast_expr *c = new_expr(p, AST_EXPR_CAST, loc);
            c->cast_kind = AST_CAST_AS_TYPE;
            if (last->targs.count == 1 && last->targs.items[0].type) {
                c->type = last->targs.items[0].type;
            } else {
                error_at(p, last->loc, "as_type needs one type argument");
                c->type = new_type(p, AST_TYPE_ERROR, last->loc);
            }
            advance(p);
            ast_exprs args = {0};
            parse_args(p, &args, ")");
            if (args.count != 1) error_at(p, loc, "as_type takes one argument");
            c->operand = args.count ? args.items[0] : error_expr(p);
            return c;
        }
        return e;
    }
    error_at(p, loc, "expected an expression before %s", tok_desc(p, t));
    return error_expr(p);
}

// postfix = primary ("[" expr "]" | args | ("." | "->") ident | "++" | "--")*
static ast_expr *parse_postfix(parser *p, ast_expr *e) {
    int links = 0;
    for (;;) {
        en_loc loc = loc_here(p);
        if (!(is(p, "[") || is(p, "(") || is(p, ".") || is(p, "->") || is(p, "++") || is(p, "--")) ||
            !link_chain(p, &links, "expression")) {
            p->links -= links;
            return e;
        }
        if (is(p, "[") && !is_at(p, 1, "[")) {
            advance(p);
            ast_expr *s = new_expr(p, AST_EXPR_SUBSCRIPT, loc);
            bool saved = p->in_targs;
            p->in_targs = false;
            s->operand = e;
            s->index = parse_expr(p);
            p->in_targs = saved;
            if (!accept(p, "]"))
                error_at(p, loc_here(p), "expected ']' before %s", tok_desc(p, peek(p)));
            e = s;
        } else if (is(p, "(")) {
            advance(p);
            /* a call is located at its callee, where "no such function" belongs */
            ast_expr *c = new_expr(p, AST_EXPR_CALL, e->loc);
            c->callee = e;
            parse_args(p, &c->args, ")");
            e = c;
        } else if (is(p, ".") || is(p, "->")) {
            ast_expr *m = new_expr(p, AST_EXPR_MEMBER, loc);
            m->arrow = is(p, "->");
            advance(p);
            bool templ = accept(p, "template");
            m->operand = e;
            if (is(p, "operator")) {
                /* x.operator float16_t(), x.operator+(y): the member function by its name */
                m->loc = loc_here(p);
                if (tok_at(p, p->pos + 1)->kind == EN_TK_PUNCT) {
                    m->member = parse_operator_name(p);
                } else {
                    advance(p);
                    ast_type *t = parse_type(p);
                    en_buf b = {0};
                    ast_type_print(t, &b);
                    m->member = en_fmt(p->a, "operator %s", b.data ? b.data : "");
                    en_buf_free(&b);
                }
            } else if (is_ident(p)) {
                m->loc = loc_here(p); /* at the member's name: "no member named x" */
                m->member = tok_str(p, peek(p));
                advance(p);
                if (templ && is(p, "<")) { /* x.template f<N>(...) */
                    m->member_targs = en_alloc(p->a, sizeof *m->member_targs);
                    if (m->member_targs) {
                        m->member_targs->loc = m->loc;
                        m->member_targs->ident = m->member;
                        m->member_targs->has_targs = true;
                        parse_targs(p, &m->member_targs->targs);
                    }
                }
            } else {
                error_at(p, loc_here(p), "expected a member name after '%s' before %s",
                         m->arrow ? "->" : ".", tok_desc(p, peek(p)));
                m->member = "<error>";
            }
            e = m;
        } else if (is(p, "++") || is(p, "--")) {
            ast_expr *u = new_expr(p, AST_EXPR_UNARY, loc);
            u->op = is(p, "++") ? AST_OP_POSTINC : AST_OP_POSTDEC;
            advance(p);
            u->operand = e;
            e = u;
        } else {
            p->links -= links;
            return e;
        }
    }
}

// unary = ("+" | "-" | "!" | "~" | "*" | "&" | "++" | "--") unary
//       | "(" type ")" (unary | init-list)
//       | ("sizeof" | "alignof") (unary | "(" type ")")
//       | postfix
static ast_expr *parse_unary(parser *p) {
    if (!enter(p, "expression")) return error_expr(p);
    static const struct { const char *s; ast_op op; } ops[] = {
        {"+", AST_OP_PLUS}, {"-", AST_OP_NEG}, {"!", AST_OP_NOT}, {"~", AST_OP_BITNOT},
        {"*", AST_OP_DEREF}, {"&", AST_OP_ADDR}, {"++", AST_OP_PREINC}, {"--", AST_OP_PREDEC},
    };
    en_loc loc = loc_here(p);
    ast_expr *e = NULL;
    if (!p->split_gt) {
        for (size_t i = 0; i < EN_COUNT(ops); i++)
            if (tok_is(peek(p), ops[i].s)) {
                advance(p);
                e = new_expr(p, AST_EXPR_UNARY, loc);
                e->op = ops[i].op;
                e->operand = parse_unary(p);
                break;
            }
    }
    if (!e && (is(p, "sizeof") || is(p, "alignof") || is(p, "_Alignof"))) {
        e = new_expr(p, is(p, "sizeof") ? AST_EXPR_SIZEOF : AST_EXPR_ALIGNOF, loc);
        advance(p);
        if (accept(p, "...")) e->pack_expansion = true; /* sizeof...(Ts) */
        int j = is(p, "(") ? scan_type(p, p->pos + 1) : -1;
        if (j >= 0 && tok_is(tok_at(p, j), ")")) {
            advance(p);
            bool saved = p->in_targs;
            p->in_targs = false;
            e->type = parse_type(p);
            p->in_targs = saved;
            expect(p, ")");
        } else {
            e->operand = parse_unary(p);
        }
    }
    if (!e && is(p, "(")) {
        /* (type) expr: a C cast when a whole type sits between the parentheses */
        int j = scan_type(p, p->pos + 1);
        if (j >= 0 && tok_is(tok_at(p, j), ")")) {
            advance(p);
            e = new_expr(p, AST_EXPR_CAST, loc);
            e->cast_kind = AST_CAST_C;
            bool saved = p->in_targs;
            p->in_targs = false;
            e->type = parse_type(p);
            p->in_targs = saved;
            expect(p, ")");
            e->operand = is(p, "{") ? parse_init_list(p) : parse_unary(p);
        }
    }
    if (!e) e = parse_postfix(p, parse_primary(p));
    leave(p);
    return e;
}

/* ---- statements ------------------------------------------------------------------------- */
static bool is_loop(const ast_stmt *s) {
    return s->kind == AST_STMT_FOR || s->kind == AST_STMT_WHILE || s->kind == AST_STMT_DO;
}

// paren-cond = "(" expr ")"
static ast_expr *parse_paren_cond(parser *p, const char *what) {
    if (!accept(p, "(")) {
        /* parse the condition anyway: `if x > 0 {` then goes on at the '{' */
        error_at(p, loc_here(p), "expected '(' after '%s'", what);
        return is(p, "{") || is(p, ";") ? error_expr(p) : parse_expr(p);
    }
    bool saved = p->in_targs;
    p->in_targs = false;
    ast_expr *e;
    if (starts_declaration(p) && !is(p, "[")) {
        error_at(p, loc_here(p), "declarations in conditions are not supported by enigma");
        e = error_expr(p);
        while (!is(p, ")") && !is(p, ";") && !is(p, "{") && peek(p)->kind != EN_TK_EOF) advance(p);
    } else {
        e = parse_expr(p);
    }
    p->in_targs = saved;
    if (!accept(p, ")"))
        error_at(p, loc_here(p), "expected ')' before %s", tok_desc(p, peek(p)));
    return e;
}

static void parse_initializer(parser *p, ast_decl *v);
static void append_attrs(parser *p, ast_attrs *to, const ast_attrs *from);

/* at '(': does a declaration follow (`if (T x = e)`)? */
static bool condition_declares(parser *p) {
    p->pos++;
    bool yes = !is(p, "[") && !is(p, "[[") && starts_declaration(p);
    p->pos--;
    return yes;
}

// if-decl = "if" "constexpr"? "(" decl-specs declarator ("=" assign | init-list) ")" stmt
//           ("else" stmt)?
// The declaration and the if go into a block of their own, the if testing the variable:
// the name lives in both branches and no further (C++ [stmt.select]). s is the IF.
static ast_stmt *parse_if_declaration(parser *p, ast_stmt *s) {
    int errors_before = p->c->diags.errors;
    ast_stmt *block = new_stmt(p, AST_STMT_COMPOUND, s->loc);
    advance(p); /* ( */
    scope *sc = push_scope(p, false);
    ast_stmt *ds = new_stmt(p, AST_STMT_DECL, loc_here(p));
    bool saved = p->in_targs;
    p->in_targs = false;
    decl_specs spec;
    parse_decl_specs(p, &spec, &ds->decls, false);
    declarator d;
    memset(&d, 0, sizeof d);
    if (spec.type) parse_declarator(p, spec.type, &d, false);
    if (!spec.type || !d.name || d.is_func_ptr) {
        if (p->c->diags.errors == errors_before)
            error_at(p, loc_here(p), "expected a variable declaration in the condition");
        s->cond = error_expr(p);
        while (!is(p, ")") && !is(p, ";") && !is(p, "{") && peek(p)->kind != EN_TK_EOF) advance(p);
    } else {
        ast_decl *v = new_decl(p, AST_DECL_VAR, d.loc);
        v->name = d.name;
        v->type = d.type;
        v->specs = spec.specs;
        append_attrs(p, &v->attrs, &spec.attrs);
        append_attrs(p, &v->attrs, &d.attrs);
        declare(p, d.name, SYM_VALUE);
        if (is(p, "=") || is(p, "{")) parse_initializer(p, v);
        else {
            error_at(p, loc_here(p), "expected '=' or '{' to initialize '%s' in the condition", d.name);
            if (is(p, "(")) skip_balanced(p); /* `T x(e)`: go on after it */
        }
        EN_PUSH(p->a, ds->decls, v);
        ast_expr *name = new_expr(p, AST_EXPR_NAME, d.loc);
        name->name.loc = d.loc;
        name->name.parts = en_alloc(p->a, sizeof *name->name.parts);
        name->name.parts[0].ident = d.name;
        name->name.parts[0].loc = d.loc;
        name->name.count = 1;
        s->cond = name;
    }
    p->in_targs = saved;
    if (!accept(p, ")"))
        error_at(p, loc_here(p), "expected ')' before %s", tok_desc(p, peek(p)));
    s->then = parse_stmt(p);
    if (accept(p, "else")) s->els = parse_stmt(p);
    pop_scope(p, sc);
    EN_PUSH(p->a, block->body, ds);
    EN_PUSH(p->a, block->body, s);
    return block;
}

// for-stmt = "for" "(" (declaration | expr? ";") expr? ";" expr? ")" stmt
static ast_stmt *parse_for(parser *p, en_loc loc) {
    ast_stmt *s = new_stmt(p, AST_STMT_FOR, loc);
    if (!expect(p, "(")) {
        skip_to_sync(p);
        return s;
    }
    scope *sc = push_scope(p, false);
    /* for (T x : range): a ':' at this level before the first ';' */
    for (int i = p->pos, depth = 0;; i++) {
        const en_token *t = tok_at(p, i);
        if (t->kind == EN_TK_EOF || tok_is(t, ";") || tok_is(t, "{") || tok_is(t, "}")) break;
        if (tok_is(t, "(") || tok_is(t, "[")) depth++;
        else if (tok_is(t, ")") || tok_is(t, "]")) {
            if (--depth < 0) break;
        } else if (depth == 0 && tok_is(t, "?")) {
            break;
        } else if (depth == 0 && tok_is(t, ":")) {
            /* for (T x : range), for (thread auto& x : range) */
            decl_specs ds;
            ast_decls defs = {0};
            parse_decl_specs(p, &ds, &defs, false);
            declarator d;
            parse_declarator(p, ds.type ? ds.type : new_type(p, AST_TYPE_ERROR, loc_here(p)), &d, false);
            ast_decl *v = new_decl(p, AST_DECL_VAR, d.loc);
            v->name = d.name ? d.name : "<error>";
            v->type = d.type;
            v->specs = ds.specs;
            if (d.name) declare(p, d.name, SYM_VALUE);
            if (!expect(p, ":")) {
                skip_to_sync(p);
                pop_scope(p, sc);
                return s;
            }
            s->range_var = v;
            s->range = parse_expr(p);
            expect(p, ")");
            s->loop_body = parse_stmt(p);
            pop_scope(p, sc);
            return s;
        }
    }
    if (starts_declaration(p)) {
        ast_stmt *d = new_stmt(p, AST_STMT_DECL, loc_here(p));
        parse_declaration(p, &d->decls, CTX_BLOCK);
        s->init = d;
    } else if (!accept(p, ";")) {
        ast_stmt *e = new_stmt(p, AST_STMT_EXPR, loc_here(p));
        e->expr = parse_expr(p);
        s->init = e;
        expect(p, ";");
    }
    if (!is(p, ";")) s->cond = parse_expr(p);
    expect(p, ";");
    if (!is(p, ")")) s->step = parse_expr(p);
    if (!accept(p, ")"))
        error_at(p, loc_here(p), "expected ')' before %s", tok_desc(p, peek(p)));
    s->loop_body = parse_stmt(p);
    pop_scope(p, sc);
    return s;
}

// stmt = compound | "if" "constexpr"? paren-cond stmt ("else" stmt)? | for-stmt
//      | "while" paren-cond stmt | "do" stmt "while" paren-cond ";"
//      | "switch" paren-cond stmt | "case" cond ":" stmt | "default" ":" stmt
//      | "break" ";" | "continue" ";" | "return" expr? ";" | ";"
//      | pragma-unroll stmt | declaration | expr ";"
static ast_stmt *parse_stmt_inner(parser *p) {
    int errors_before = p->c->diags.errors;
    const en_token *t = peek(p);
    en_loc loc = t->loc;
    if (t->kind == EN_TK_PRAGMA) {
        int count = t->ival > INT32_MAX ? INT32_MAX : (int)t->ival;
        advance(p);
        if (is(p, "}") || peek(p)->kind == EN_TK_EOF) {
            en_warning(&p->c->diags, loc, "'#pragma unroll' is ignored: it must come before a loop");
            return new_stmt(p, AST_STMT_EMPTY, loc);
        }
        ast_stmt *s = parse_stmt(p);
        if (is_loop(s)) {
            s->has_unroll = true;
            s->unroll_count = count;
        } else {
            en_warning(&p->c->diags, loc, "'#pragma unroll' is ignored: it must come before a loop");
        }
        return s;
    }
    if (at_attr_start(p)) {
        /* [[likely]] if (...): attributes of a statement carry nothing enigma uses */
        int start = p->pos;
        ast_attrs ignored = {0};
        parse_attrs(p, &ignored);
        if (is(p, "if") || is(p, "for") || is(p, "while") || is(p, "do") || is(p, "switch") ||
            is(p, "return") || is(p, "break") || is(p, "continue") || is(p, "{") || is(p, ";"))
            return parse_stmt(p);
        if (p->c->diags.errors == errors_before) p->pos = start; /* a declaration's attributes */
    }
    if (is(p, "{")) return parse_compound(p);
    if (accept(p, ";")) return new_stmt(p, AST_STMT_EMPTY, loc);
    if (accept(p, "if")) {
        ast_stmt *s = new_stmt(p, AST_STMT_IF, loc);
        s->is_constexpr = accept(p, "constexpr");
        if (is(p, "(") && condition_declares(p)) return parse_if_declaration(p, s);
        s->cond = parse_paren_cond(p, "if");
        s->then = parse_stmt(p);
        if (accept(p, "else")) s->els = parse_stmt(p);
        return s;
    }
    if (accept(p, "for")) return parse_for(p, loc);
    if (accept(p, "while")) {
        ast_stmt *s = new_stmt(p, AST_STMT_WHILE, loc);
        s->cond = parse_paren_cond(p, "while");
        s->loop_body = parse_stmt(p);
        return s;
    }
    if (accept(p, "do")) {
        ast_stmt *s = new_stmt(p, AST_STMT_DO, loc);
        s->loop_body = parse_stmt(p);
        if (!accept(p, "while")) {
            error_at(p, loc_here(p), "expected 'while' in do/while loop before %s",
                     tok_desc(p, peek(p)));
            s->cond = error_expr(p);
            skip_to_sync(p);
            return s;
        }
        errors_before = p->c->diags.errors;
        s->cond = parse_paren_cond(p, "while");
        expect_semi(p, "after do/while statement", errors_before);
        return s;
    }
    if (accept(p, "switch")) {
        ast_stmt *s = new_stmt(p, AST_STMT_SWITCH, loc);
        s->cond = parse_paren_cond(p, "switch");
        s->loop_body = parse_stmt(p);
        return s;
    }
    if (accept(p, "case")) {
        ast_stmt *s = new_stmt(p, AST_STMT_CASE, loc);
        s->expr = parse_cond(p);
        if (is(p, "...")) {
            error_at(p, loc_here(p), "case ranges are not supported in Metal");
            advance(p);
            parse_cond(p);
        }
        if (!accept(p, ":"))
            error_at(p, loc_prev_end(p), "expected ':' after 'case'");
        s->loop_body = is(p, "}") ? new_stmt(p, AST_STMT_EMPTY, loc_here(p)) : parse_stmt(p);
        return s;
    }
    if (accept(p, "default")) {
        ast_stmt *s = new_stmt(p, AST_STMT_DEFAULT, loc);
        if (!accept(p, ":"))
            error_at(p, loc_prev_end(p), "expected ':' after 'default'");
        s->loop_body = is(p, "}") ? new_stmt(p, AST_STMT_EMPTY, loc_here(p)) : parse_stmt(p);
        return s;
    }
    if (accept(p, "break")) {
        expect_semi(p, "after break statement", errors_before);
        return new_stmt(p, AST_STMT_BREAK, loc);
    }
    if (accept(p, "continue")) {
        expect_semi(p, "after continue statement", errors_before);
        return new_stmt(p, AST_STMT_CONTINUE, loc);
    }
    if (accept(p, "return")) {
        ast_stmt *s = new_stmt(p, AST_STMT_RETURN, loc);
        if (!is(p, ";") && !is(p, "}"))
            s->expr = is(p, "{") ? parse_init_list(p) : parse_expr(p);
        expect_semi(p, "after return statement", errors_before);
        return s;
    }
    if (is(p, "goto")) {
        error_at(p, loc, "goto is not supported by enigma");
        skip_to_sync(p);
        return new_stmt(p, AST_STMT_ERROR, loc);
    }
    if (is(p, "try")) {
        error_at(p, loc, "cannot use 'try' with exceptions disabled");
        advance(p);
        if (is(p, "{")) skip_balanced(p);
        while (is(p, "catch")) {
            advance(p);
            if (is(p, "(")) skip_balanced(p);
            if (is(p, "{")) skip_balanced(p);
        }
        return new_stmt(p, AST_STMT_ERROR, loc);
    }
    if (is(p, "else")) {
        error_at(p, loc, "'else' without a previous 'if'");
        advance(p);
        return parse_stmt(p);
    }
    if (t->kind == EN_TK_IDENT && is_at(p, 1, ":") && !is_reserved(t)) {
        error_at(p, loc, "labels are not supported by enigma (goto is not supported)");
        advance(p);
        advance(p);
        return is(p, "}") ? new_stmt(p, AST_STMT_EMPTY, loc) : parse_stmt(p);
    }
    if (is(p, "namespace") || is(p, "template")) {
        error_at(p, loc, "'%s' is not allowed inside a function", is(p, "namespace") ? "namespace" : "template");
        skip_to_sync(p);
        return new_stmt(p, AST_STMT_ERROR, loc);
    }
    if (starts_declaration(p)) {
        ast_stmt *s = new_stmt(p, AST_STMT_DECL, loc);
        parse_declaration(p, &s->decls, CTX_BLOCK);
        return s;
    }
    /* `Foo x;` with Foo unknown: a declaration whose type is misspelt or missing */
    const en_token *next = tok_at(p, p->pos + 1);
    if (t->kind == EN_TK_IDENT && !is_reserved(t) && lookup_tok(p, t) == SYM_NONE &&
        next->kind == EN_TK_IDENT && !is_reserved(next)) {
        error_at(p, loc, "unknown type name '%.*s'", t->len, t->text);
        ast_stmt *s = new_stmt(p, AST_STMT_DECL, loc);
        p->unknown_type_ok = true;
        parse_declaration(p, &s->decls, CTX_BLOCK);
        p->unknown_type_ok = false;
        return s;
    }
    ast_stmt *s = new_stmt(p, AST_STMT_EXPR, loc);
    s->expr = parse_expr(p);
    expect_semi(p, "after expression", errors_before);
    return s;
}

static ast_stmt *parse_stmt(parser *p) {
    if (!enter(p, "statement")) return new_stmt(p, AST_STMT_ERROR, loc_here(p));
    ast_stmt *s = parse_stmt_inner(p);
    leave(p);
    return s;
}

// compound = "{" stmt* "}"
static ast_stmt *parse_compound(parser *p) {
    ast_stmt *s = new_stmt(p, AST_STMT_COMPOUND, loc_here(p));
    if (!expect(p, "{")) return s;
    if (!enter(p, "block")) return s;
    scope *sc = push_scope(p, false);
    while (!is(p, "}") && peek(p)->kind != EN_TK_EOF) {
        int before = p->pos;
        ast_stmt *item = parse_stmt(p);
        EN_PUSH(p->a, s->body, item);
        if (p->pos == before) {
            /* nothing was taken: drop the offending token so the loop moves on */
            error_at(p, loc_here(p), "unexpected %s", tok_desc(p, peek(p)));
            advance(p);
        }
    }
    pop_scope(p, sc);
    if (!accept(p, "}"))
        error_at(p, loc_here(p), "expected '}' at end of block (the block began at line %d)",
                 s->loc.line);
    leave(p);
    return s;
}

/* ---- declarations -------------------------------------------------------------------- */
/* the part both kinds of template parameter share: an optional (refused) pack "...",
 * then the optional name, which moves the parameter's location to it */
static void parse_tparam_name(parser *p, ast_tparam *tp) {
    if (accept(p, "...")) tp->is_pack = true;
    if (is_ident(p)) {
        tp->loc = loc_here(p);
        tp->name = tok_str(p, peek(p));
        advance(p);
    }
}

// tparams = "<" (tparam ("," tparam)*)? ">"
// tparam = ("typename" | "class") "..."? ident? ("=" type)? | type ident? ("=" cond)?
static void parse_tparams(parser *p, ast_tparams *out) {
    if (!expect(p, "<")) return;
    bool saved = p->in_targs;
    p->in_targs = true;
    while (!is(p, ">") && peek(p)->kind != EN_TK_EOF) {
        int before = p->pos;
        ast_tparam tp = {0};
        tp.loc = loc_here(p);
        if ((is(p, "typename") || is(p, "class")) &&
            (tok_at(p, p->pos + 1)->kind == EN_TK_IDENT || is_at(p, 1, "...") ||
             is_at(p, 1, ",") || is_at(p, 1, ">") || is_at(p, 1, "="))) {
            advance(p);
            tp.is_type = true;
            parse_tparam_name(p, &tp);
            if (accept(p, "=")) tp.default_type = parse_type(p);
            if (tp.name) scope_put(p, p->scope, tp.name, SYM_TYPE);
        } else if (is(p, "template")) {
            error_at(p, loc_here(p), "template template parameters are not supported by enigma");
            skip_to_sync(p);
            break;
        } else {
            decl_specs ds;
            ast_decls ignored = {0};
            parse_decl_specs(p, &ds, &ignored, true);
            if (!ds.type) {
                error_at(p, loc_here(p), "expected a template parameter before %s",
                         tok_desc(p, peek(p)));
                break;
            }
            tp.type = parse_ptr_ops(p, ds.type);
            if (is(p, "(") && is_at(p, 1, "*")) {
                /* void (*f)(device const T *, short) : a function the template calls; its
                 * signature is checked where it is called */
                advance(p);
                advance(p);
                parse_tparam_name(p, &tp);
                expect(p, ")");
                ast_params ignored_params = {0};
                if (is(p, "(")) parse_params(p, &ignored_params);
                else error_at(p, loc_here(p), "expected the parameter list of function pointer '%s'",
                              tp.name ? tp.name : "?");
                tp.is_func = true;
            } else {
                parse_tparam_name(p, &tp);
            }
            if (accept(p, "=")) tp.default_value = parse_cond(p);
            if (tp.name) scope_put(p, p->scope, tp.name, SYM_VALUE);
        }
        EN_PUSH(p->a, *out, tp);
        if (p->pos == before || !accept(p, ",")) break;
    }
    p->in_targs = saved;
    expect_gt(p);
}

// params = "(" ("void" | param ("," param)*)? ")"
// param = decl-specs declarator ("=" assign)?
static void parse_params(parser *p, ast_params *out) {
    advance(p); /* '(' */
    if (is(p, "void") && is_at(p, 1, ")")) advance(p);
    bool saved = p->in_targs;
    p->in_targs = false;
    while (!is(p, ")") && peek(p)->kind != EN_TK_EOF) {
        int before = p->pos;
        ast_param prm = {0};
        prm.loc = loc_here(p);
        if (is(p, "...")) {
            error_at(p, loc_here(p), "variadic functions are not supported in Metal");
            advance(p);
            break;
        }
        decl_specs ds;
        ast_decls ignored = {0};
        parse_decl_specs(p, &ds, &ignored, true);
        if (!ds.type) {
            if (is_ident(p) && !is_reserved(peek(p)))
                error_at(p, loc_here(p), "unknown type name '%.*s'", peek(p)->len, peek(p)->text);
            else
                error_at(p, loc_here(p), "expected a parameter type before %s",
                         tok_desc(p, peek(p)));
            ds.type = new_type(p, AST_TYPE_ERROR, loc_here(p));
            while (!is(p, ",") && !is(p, ")") && !is(p, "{") && !is(p, ";") &&
                   peek(p)->kind != EN_TK_EOF)
                advance(p);
        }
        bool pack = accept(p, "...");
        declarator d;
        parse_declarator(p, ds.type, &d, true);
        prm.type = d.type;
        prm.name = d.name;
        prm.is_pack = pack;
        if (d.name) prm.loc = d.loc;
        prm.attrs = ds.attrs;
        for (int i = 0; i < d.attrs.count; i++) EN_PUSH(p->a, prm.attrs, d.attrs.items[i]);
        if (accept(p, "=")) prm.default_value = parse_assign(p);
        EN_PUSH(p->a, *out, prm);
        if (p->pos == before) break;
        if (!accept(p, ",")) break;
    }
    p->in_targs = saved;
    if (!accept(p, ")")) {
        error_at(p, loc_here(p), "expected ')' to end the parameter list before %s",
                 tok_desc(p, peek(p)));
        while (!is(p, ")") && !is(p, "{") && !is(p, ";") && peek(p)->kind != EN_TK_EOF) advance(p);
        accept(p, ")");
    }
}

/* the rest of a function after its name: parameters, qualifiers, body or ';' */
static void parse_function_rest(parser *p, ast_decl *f, decl_ctx ctx) {
    parse_params(p, &f->params);
    for (;;) {
        if (accept(p, "const")) f->is_const_method = true;
        else if (accept(p, "thread")) f->this_space = AST_AS_THREAD;
        else if (accept(p, "device")) f->this_space = AST_AS_DEVICE;
        else if (accept(p, "constant")) f->this_space = AST_AS_CONSTANT;
        else if (accept(p, "threadgroup")) f->this_space = AST_AS_THREADGROUP;
        else if (accept(p, "override") || accept(p, "final") || accept(p, "noexcept")) {}
        else if (at_attr_start(p)) parse_attrs(p, &f->attrs);
        else if (is(p, "__attribute__")) skip_gnu_attribute(p);
        else break;
    }
    if (is(p, "->")) {
        error_at(p, loc_here(p), "trailing return types are not supported by enigma");
        advance(p);
        parse_type(p);
    }
    if (f->is_constructor && accept(p, ":")) {
        /* member initializers: name(args) or name{args}, comma-separated */
        do {
            if (!is_ident(p)) {
                error_at(p, loc_here(p), "expected a member name in the constructor's initializer list before %s",
                         tok_desc(p, peek(p)));
                break;
            }
            ast_expr *call = new_expr(p, AST_EXPR_CALL, loc_here(p));
            call->callee = new_expr(p, AST_EXPR_NAME, loc_here(p));
            call->callee->name = parse_name(p);
            call->brace = is(p, "{");
            if (is(p, "(")) {
                advance(p);
                parse_args(p, &call->args, ")");
            } else if (is(p, "{")) {
                ast_expr *list = parse_init_list(p);
                call->args = list->args;
            } else {
                error_at(p, loc_here(p), "expected '(' or '{' after member '%s' in the initializer list",
                         ast_name_last(&call->callee->name));
                break;
            }
            EN_PUSH(p->a, f->ctor_inits, call);
        } while (accept(p, ","));
        while (!is(p, "{") && !is(p, ";") && peek(p)->kind != EN_TK_EOF) advance(p);
    }
    const en_token *after_eq = tok_at(p, p->pos + 1);
    bool pure = after_eq->kind == EN_TK_INT && after_eq->ival == 0;
    if (is(p, "=") && (is_at(p, 1, "default") || is_at(p, 1, "delete") || pure)) {
        /* `= 0` only follows `virtual`, which has been reported */
        advance(p);
        advance(p);
    }
    if (is(p, "{")) {
        if (ctx == CTX_BLOCK)
            error_at(p, loc_here(p), "function definitions are not allowed inside a function");
        scope *sc = push_scope(p, false);
        for (int i = 0; i < f->params.count; i++)
            if (f->params.items[i].name) scope_put(p, sc, f->params.items[i].name, SYM_VALUE);
        const char *saved_struct = p->struct_name;
        f->body = parse_compound(p);
        p->struct_name = saved_struct;
        pop_scope(p, sc);
        return;
    }
    if (!accept(p, ";")) {
        error_at(p, loc_prev_end(p), "expected ';' or a function body after the parameter list");
        skip_to_sync(p);
    }
}

// initializer = "=" (init-list | assign) | "(" args ")" | init-list
static void parse_initializer(parser *p, ast_decl *v) {
    if (accept(p, "=")) {
        v->init_style = AST_INIT_ASSIGN;
        v->init = is(p, "{") ? parse_init_list(p) : parse_assign(p);
    } else if (is(p, "(")) {
        v->init_style = AST_INIT_PAREN;
        v->init = new_expr(p, AST_EXPR_INIT_LIST, loc_here(p));
        advance(p);
        parse_args(p, &v->init->args, ")");
    } else if (is(p, "{")) {
        v->init_style = AST_INIT_BRACE;
        v->init = parse_init_list(p);
    }
}

// using-decl = "using" ("namespace" name | ident attributes? "=" type | name) ";"
static void parse_using(parser *p, ast_decls *out, bool is_template) {
    int errors_before = p->c->diags.errors;
    en_loc loc = loc_here(p);
    advance(p);
    if (accept(p, "namespace")) {
        ast_decl *d = new_decl(p, AST_DECL_USING_NAMESPACE, loc);
        d->target = parse_name(p);
        EN_PUSH(p->a, *out, d);
        expect_semi(p, "after using directive", errors_before);
        return;
    }
    if (is_ident(p) && (is_at(p, 1, "=") || is_at(p, 1, "[[") || is_at(p, 1, "["))) {
        ast_decl *d = new_decl(p, AST_DECL_TYPEDEF, loc_here(p));
        d->name = tok_str(p, peek(p));
        advance(p);
        parse_attrs(p, &d->attrs);
        expect(p, "=");
        d->type = parse_type_defining(p, out); /* the union's definition comes first */
        if (is(p, "(") && is_at(p, 1, "*") && is_at(p, 2, ")") && is_at(p, 3, "(")) {
            /* using F = R (*)(params); a function-pointer type: type is the return type */
            advance(p);
            advance(p);
            advance(p);
            parse_params(p, &d->params);
            d->is_func_type = true;
            d->func_type_is_pointer = true;
        }
        declare(p, d->name, is_template ? SYM_TEMPLATE_TYPE : SYM_TYPE);
        EN_PUSH(p->a, *out, d);
        expect_semi(p, "after alias declaration", errors_before);
        return;
    }
    ast_decl *d = new_decl(p, AST_DECL_USING, loc);
    accept(p, "typename");
    d->target = parse_name(p);
    /* using metal::float4; brings a type name in: keep what it named */
    const char *last = ast_name_last(&d->target);
    sym_kind k = lookup(p, last, (int)strlen(last));
    if (k != SYM_NONE) declare(p, last, k);
    EN_PUSH(p->a, *out, d);
    expect_semi(p, "after using declaration", errors_before);
}

// namespace-decl = "inline"? "namespace" (ident ("::" ident)*)? ("{" declaration* "}" | "=" name ";")
static void parse_namespace(parser *p, ast_decls *out) {
    en_loc loc = loc_here(p);
    advance(p);
    ast_decl *outer = NULL, *inner = NULL;
    int parts = 0;
    do {
        if (++parts > MAX_DEPTH) {
            error_at(p, loc_here(p), "namespace nested too deeply");
            p->aborted = true;
            return;
        }
        ast_decl *d = new_decl(p, AST_DECL_NAMESPACE, loc_here(p));
        if (is_ident(p)) {
            d->name = tok_str(p, peek(p));
            advance(p);
        }
        if (inner) EN_PUSH(p->a, inner->decls, d);
        else outer = d;
        inner = d;
        accept(p, "inline");
    } while (accept(p, "::"));
    if (!outer) outer = inner = new_decl(p, AST_DECL_NAMESPACE, loc);
    if (accept(p, "=")) {
        error_at(p, loc, "namespace aliases are not supported by enigma");
        skip_to_sync(p);
        return;
    }
    if (!expect(p, "{")) {
        skip_to_sync(p);
        return;
    }
    if (!enter(p, "namespace")) return;
    while (!is(p, "}") && peek(p)->kind != EN_TK_EOF) {
        int before = p->pos;
        if (peek(p)->kind == EN_TK_PRAGMA || accept(p, ";")) {
            if (p->pos == before) advance(p);
            continue;
        }
        parse_declaration(p, &inner->decls, CTX_TOP);
        if (p->pos == before) advance(p);
    }
    expect(p, "}");
    leave(p);
    EN_PUSH(p->a, *out, outer);
}

// static-assert = "static_assert" "(" cond ("," string)? ")" ";"
static void parse_static_assert(parser *p, ast_decls *out) {
    int errors_before = p->c->diags.errors;
    ast_decl *d = new_decl(p, AST_DECL_STATIC_ASSERT, loc_here(p));
    advance(p);
    if (!expect(p, "(")) {
        skip_to_sync(p);
        return;
    }
    bool saved = p->in_targs;
    p->in_targs = false;
    d->cond = parse_assign(p);
    if (accept(p, ",")) d->message = parse_assign(p);
    p->in_targs = saved;
    expect(p, ")");
    EN_PUSH(p->a, *out, d);
    expect_semi(p, "after static_assert", errors_before);
}

// explicit-inst = "template" decl-specs name ";"
//   template [[host_name("f_float")]] [[kernel]] decltype(f<float>) f<float>;
//   template [[host_name("k_f")]] kernel k_t k<float>;    (k_t: typedef decltype(k<float>))
static void parse_explicit_inst(parser *p, ast_decls *out) {
    int errors_before = p->c->diags.errors;
    ast_decl *d = new_decl(p, AST_DECL_EXPLICIT_INST, loc_here(p));
    decl_specs ds;
    ast_decls ignored = {0};
    parse_decl_specs(p, &ds, &ignored, true);
    d->specs = ds.specs;
    d->attrs = ds.attrs;
    d->type = ds.type;
    if (!ds.type) {
        error_at(p, loc_here(p), "expected the type of the explicit instantiation before %s",
                 tok_desc(p, peek(p)));
        skip_to_sync(p);
        return;
    }
    d->type = parse_ptr_ops(p, ds.type);
    if (!is_ident(p) && !is(p, "::")) {
        error_at(p, loc_here(p), "expected the name of the template to instantiate before %s",
                 tok_desc(p, peek(p)));
        skip_to_sync(p);
        return;
    }
    d->loc = loc_here(p);
    d->target = parse_name(p);
    d->name = ast_name_last(&d->target);
    if (is(p, "(")) {
        /* template void f<float>(float); — a function's explicit instantiation with its
         * parameter list: the parameters select the overload, and where no template
         * arguments are written they deduce them (MLX's conv.metal) */
        parse_params(p, &d->params);
    }
    parse_attrs(p, &d->attrs);
    EN_PUSH(p->a, *out, d);
    expect_semi(p, "after the explicit instantiation", errors_before);
}

// template-decl = "template" tparams declaration
static void parse_template(parser *p, ast_decls *out, decl_ctx ctx) {
    advance(p);
    if (!is(p, "<")) {
        parse_explicit_inst(p, out);
        return;
    }
    scope *sc = push_scope(p, true);
    ast_tparams tparams = {0};
    parse_tparams(p, &tparams);
    int first = out->count;
    bool saved_pending = p->template_pending;
    p->template_pending = true;
    if (is(p, "using")) parse_using(p, out, true);
    else parse_declaration(p, out, ctx);
    for (int i = first; i < out->count; i++) {
        ast_decl *d = out->items[i];
        d->is_template = true;
        d->tparams = tparams;
        /* a template's name takes template arguments wherever it is used next */
        if (d->kind == AST_DECL_FUNC && !d->qual_name.count && !d->is_operator && !d->is_constructor)
            declare(p, d->name, SYM_TEMPLATE_FUNC); /* (a constructor template's name stays the type's) */
        else if (d->kind == AST_DECL_STRUCT || d->kind == AST_DECL_TYPEDEF)
            declare(p, d->name, SYM_TEMPLATE_TYPE);
        else if (d->kind == AST_DECL_VAR) /* a variable template: is_v<T> takes arguments */
            declare(p, d->name, SYM_TEMPLATE_FUNC);
    }
    p->template_pending = saved_pending;
    pop_scope(p, sc);
}

/* at program scope `T x(...)` declares a function unless what follows '(' can only be a
 * value: a literal, an operator, or a name known as a variable (`constant float4 v(1);`) */
static bool paren_init_follows(parser *p) {
    const en_token *t = tok_at(p, p->pos + 1);
    if (t->kind == EN_TK_INT || t->kind == EN_TK_FLOAT || t->kind == EN_TK_CHAR || t->kind == EN_TK_STRING)
        return true;
    if (t->kind == EN_TK_PUNCT)
        return !tok_is(t, ")") && !tok_is(t, "[") && !tok_is(t, "[[") && !tok_is(t, "::") &&
               !tok_is(t, "...");
    if (tok_is(t, "true") || tok_is(t, "false") || tok_is(t, "sizeof")) return true;
    return t->kind == EN_TK_IDENT && lookup_tok(p, t) == SYM_VALUE;
}

static bool has_attr(const ast_attrs *attrs, const char *name) {
    for (int i = 0; i < attrs->count; i++)
        if (strcmp(attrs->items[i].name, name) == 0) return true;
    return false;
}

static void append_attrs(parser *p, ast_attrs *to, const ast_attrs *from) {
    for (int i = 0; i < from->count; i++) EN_PUSH(p->a, *to, from->items[i]);
}

// declaration = template-decl | using-decl | namespace-decl | static-assert
//             | decl-specs ";"
//             | decl-specs declarator function-rest
//             | decl-specs declarator (":" cond)? initializer? ("," declarator initializer?)* ";"

/* the position after the specifiers that may precede a constructor or a conversion
 * operator: constexpr, inline, explicit and GNU attributes */
static int member_prefix_end(parser *p, int at) {
    for (;;) {
        const en_token *t = tok_at(p, at);
        if (tok_is(t, "constexpr") || tok_is(t, "inline") || tok_is(t, "explicit")) {
            at++;
        } else if (tok_is(t, "__attribute__") && tok_is(tok_at(p, at + 1), "(")) {
            int depth = 0;
            at++;
            do {
                const en_token *u = tok_at(p, at);
                if (u->kind == EN_TK_EOF) return at;
                if (tok_is(u, "(")) depth++;
                else if (tok_is(u, ")")) depth--;
                at++;
            } while (depth > 0);
        } else {
            return at;
        }
    }
}

static void parse_declaration_inner(parser *p, ast_decls *out, decl_ctx ctx) {
    int errors_before = p->c->diags.errors;
    en_loc loc = loc_here(p);
    if (is(p, "template")) {
        parse_template(p, out, ctx);
        return;
    }
    if (is(p, "using")) {
        parse_using(p, out, false);
        return;
    }
    if (is(p, "namespace") || (is(p, "inline") && is_at(p, 1, "namespace"))) {
        accept(p, "inline");
        if (ctx != CTX_TOP) {
            error_at(p, loc, "namespaces can only be declared at program scope");
            advance(p);
            skip_to_sync(p);
            return;
        }
        parse_namespace(p, out);
        return;
    }
    if (is(p, "static_assert")) {
        parse_static_assert(p, out);
        return;
    }
    if (is(p, "extern") && tok_at(p, p->pos + 1)->kind == EN_TK_STRING) {
        error_at(p, loc, "linkage specifications (extern \"C\") are not supported by enigma");
        advance(p);
        advance(p);
        if (is(p, "{")) skip_balanced(p);
        else skip_to_sync(p);
        return;
    }
    /* a constructor: the struct's own name followed by its parameters, perhaps after
     * `constexpr`, `inline`, `explicit` or `__attribute__((...))` (METAL_FUNC spells
     * `inline __attribute__((__always_inline__))`) */
    int ctor_at = ctx == CTX_MEMBER ? member_prefix_end(p, p->pos) : p->pos;
    const en_token *ctor_tok = tok_at(p, ctor_at);
    if (ctx == CTX_MEMBER && p->struct_name && ctor_tok->kind == EN_TK_IDENT && tok_is(tok_at(p, ctor_at + 1), "(") &&
        strlen(p->struct_name) == (size_t)ctor_tok->len &&
        memcmp(p->struct_name, ctor_tok->text, (size_t)ctor_tok->len) == 0) {
        ast_decl *f = new_decl(p, AST_DECL_FUNC, ctor_tok->loc);
        f->name = p->struct_name;
        f->is_constructor = true;
        while (p->pos < ctor_at) advance(p);
        advance(p);
        EN_PUSH(p->a, *out, f);
        parse_function_rest(p, f, ctx);
        return;
    }
    /* a conversion operator: [explicit|constexpr|inline] operator T() const {...} */
    int conv_at = ctx == CTX_MEMBER ? member_prefix_end(p, p->pos) : p->pos;
    if (ctx == CTX_MEMBER && tok_is(tok_at(p, conv_at), "operator") && !tok_is(tok_at(p, conv_at + 1), "(") &&
        tok_at(p, conv_at + 1)->kind == EN_TK_IDENT) {
        while (p->pos < conv_at) advance(p);
        ast_decl *f = new_decl(p, AST_DECL_FUNC, loc_here(p));
        advance(p); /* operator */
        f->type = parse_type(p);
        en_buf b = {0};
        ast_type_print(f->type, &b);
        f->name = en_fmt(p->a, "operator %s", b.data ? b.data : "");
        en_buf_free(&b);
        f->is_operator = true;
        p->template_pending = false;
        EN_PUSH(p->a, *out, f);
        if (!is(p, "(")) {
            error_at(p, loc_here(p), "expected '(' after the conversion operator's type");
            skip_to_sync(p);
            return;
        }
        parse_function_rest(p, f, ctx);
        return;
    }
    bool templ = p->template_pending;
    decl_specs ds;
    parse_decl_specs(p, &ds, out, ctx != CTX_BLOCK || p->unknown_type_ok);
    p->template_pending = false;
    p->unknown_type_ok = false;
    if (!ds.type) {
        if (ds.specs || ds.quals || ds.space || ds.attrs.count)
            error_at(p, loc_here(p), "expected a type before %s", tok_desc(p, peek(p)));
        else
            error_at(p, loc_here(p), "expected a declaration before %s", tok_desc(p, peek(p)));
        skip_to_sync(p);
        return;
    }
    if (accept(p, ";")) return; /* struct Foo {...}; enum E {...}; */
    if (ds.defined_tag && ((is_decl_keyword(peek(p)) && !is_cv_keyword(peek(p))) ||
                           scan_type_name(p, p->pos) >= 0)) {
        error_at(p, loc_prev_end(p), "expected ';' after %s",
                 out->count && out->items[out->count - 1]->kind == AST_DECL_ENUM ? "enum" : "struct");
        return;
    }
    bool func_pointer = is_at(p, 1, "*");
    int name_at = func_pointer ? 2 : 1;
    if ((ds.specs & AST_SPEC_TYPEDEF) && is(p, "(") && tok_at(p, p->pos + name_at)->kind == EN_TK_IDENT &&
        is_at(p, name_at + 1, ")") && is_at(p, name_at + 2, "(")) {
        /* typedef void (k_t)(device float *, uint); — the type of a function, which
         * explicit instantiations name (template [[host_name("k")]] kernel k_t k<float>;);
         * typedef void (*f_t)(int); — a pointer to one (function_pointer.c) */
        ast_decl *t = new_decl(p, AST_DECL_TYPEDEF, tok_at(p, p->pos + name_at)->loc);
        t->name = tok_str(p, tok_at(p, p->pos + name_at));
        t->type = ds.type;
        t->is_func_type = true;
        t->func_type_is_pointer = func_pointer;
        for (int k = 0; k < name_at + 2; k++) advance(p);
        parse_params(p, &t->params);
        declare(p, t->name, SYM_TYPE);
        EN_PUSH(p->a, *out, t);
        expect_semi(p, "at end of declaration", errors_before);
        return;
    }
    for (;;) {
        declarator d;
        parse_declarator(p, ds.type, &d, false);
        if (d.is_func_ptr) {
            skip_to_sync(p);
            return;
        }
        if (is(p, "(") && ctx != CTX_BLOCK && !(ds.specs & AST_SPEC_TYPEDEF) &&
            !paren_init_follows(p)) {
            ast_decl *f = new_decl(p, AST_DECL_FUNC, d.loc);
            f->name = d.name ? d.name : "<error>";
            f->qual_name = d.qual_name;
            f->spec_name = d.spec_name;
            f->specs = ds.specs;
            f->type = d.type;
            f->is_operator = d.is_operator;
            append_attrs(p, &f->attrs, &ds.attrs);
            append_attrs(p, &f->attrs, &d.attrs);
            EN_PUSH(p->a, *out, f);
            /* a function template is one before its body: `f<N - 1>(x)` in the body
             * calls it (parse_template declares it again, for what follows) */
            if (templ && d.name && !d.qual_name.count && !d.is_operator)
                declare(p, d.name, SYM_TEMPLATE_FUNC);
            parse_function_rest(p, f, ctx);
            if (has_attr(&f->attrs, "kernel")) f->specs |= AST_SPEC_KERNEL;
            return;
        }
        if (ds.specs & AST_SPEC_TYPEDEF) {
            ast_decl *t = new_decl(p, AST_DECL_TYPEDEF, d.loc);
            t->name = d.name ? d.name : "<error>";
            t->type = d.type;
            append_attrs(p, &t->attrs, &ds.attrs);
            append_attrs(p, &t->attrs, &d.attrs);
            declare(p, d.name, templ ? SYM_TEMPLATE_TYPE : SYM_TYPE);
            EN_PUSH(p->a, *out, t);
        } else {
            ast_decl *v = new_decl(p, AST_DECL_VAR, d.loc);
            v->name = d.name ? d.name : "<error>";
            v->spec_name = d.spec_name; /* a variable template's specialization */
            v->qual_name = d.qual_name; /* S<6, 3, 8>::wt_transform: a static member's definition */
            v->type = d.type;
            v->specs = ds.specs;
            append_attrs(p, &v->attrs, &ds.attrs);
            append_attrs(p, &v->attrs, &d.attrs);
            /* a variable hides a type of the same name (fields are reached through
             * their object, so they hide nothing) */
            if (ctx != CTX_MEMBER) declare(p, d.name, SYM_VALUE);
            if (ctx == CTX_MEMBER && accept(p, ":")) v->bit_width = parse_cond(p);
            parse_initializer(p, v);
            EN_PUSH(p->a, *out, v);
        }
        if (!accept(p, ",")) break;
    }
    expect_semi(p, "at end of declaration", errors_before);
}

static void parse_declaration(parser *p, ast_decls *out, decl_ctx ctx) {
    if (!enter(p, "declaration")) return;
    parse_declaration_inner(p, out, ctx);
    leave(p);
}

// unit = (declaration | ";")*
ast_unit *en_parse(en_ctx *c, en_tokens toks) {
    parser p = {0};
    p.c = c;
    p.a = &c->arena;
    p.toks = toks.items;
    p.count = toks.items ? toks.count : 0;
    /* the parser reads up to the first EOF; a missing one is made up after the last token */
    for (int i = 0; i < p.count; i++)
        if (p.toks[i].kind == EN_TK_EOF) {
            p.eof = p.toks[i];
            p.count = i;
            break;
        }
    if (p.eof.kind != EN_TK_EOF || !p.eof.text) {
        p.eof.kind = EN_TK_EOF;
        p.eof.text = "";
        p.eof.len = 0;
        if (p.count > 0) {
            p.eof.loc = p.toks[p.count - 1].loc;
            p.eof.loc.col += p.toks[p.count - 1].len;
        } else if (!p.eof.loc.line) {
            p.eof.loc = (en_loc){c->sources.files.count ? 0 : -1, 1, 1};
        }
    }
    declare_builtins(&p);
    ast_unit *u = en_alloc(p.a, sizeof *u);
    while (peek(&p)->kind != EN_TK_EOF) {
        int before = p.pos;
        if (peek(&p)->kind == EN_TK_PRAGMA) {
            en_warning(&c->diags, peek(&p)->loc, "'#pragma unroll' is ignored outside a function");
            advance(&p);
            continue;
        }
        if (accept(&p, ";")) continue;
        if (is(&p, "}")) {
            error_at(&p, loc_here(&p), "extraneous closing brace ('}')");
            advance(&p);
            continue;
        }
        parse_declaration(&p, &u->decls, CTX_TOP);
        if (p.pos == before) advance(&p);
    }
    if (p.a->out_of_memory) {
        /* nodes made after the failure share the arena's spare block and may point at
         * each other: hand over nothing rather than a tree with cycles */
        static ast_unit empty_unit; /* zero, and never written */
        return &empty_unit;
    }
    return u;
}
