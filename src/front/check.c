/* check.c — the checker's entry point and its name scopes.
 *
 * Needs: the parser's tree (ast.h), which may be incomplete after syntax errors (ERROR
 * nodes are skipped silently: the parser reported them). Guarantees: an ir_module in
 * which names, types, overloads, templates and conversions are resolved (see ir.h for
 * the shape), or errors in c->diags naming what is wrong; several errors per run; never
 * a crash on a well-formed tree.
 *
 * Program-scope names live in one scope under their qualified names ("ns::f"); an
 * unqualified use looks through the enclosing namespaces outward, then the namespaces
 * named by `using namespace`. `metal::` names the built-in namespace, which is global. */
#include "check.h"

#include <string.h>

void ck_push_scope(checker *ck) {
    ck_scope *s = en_alloc(ck->a, sizeof *s);
    s->parent = ck->scope;
    ck->scope = s;
}

void ck_pop_scope(checker *ck) {
    if (ck->scope && ck->scope != ck->globals) ck->scope = ck->scope->parent;
}

const char *ck_qualify(checker *ck, const char *name) {
    if (!ck->ns || !ck->ns[0]) return name;
    return en_fmt(ck->a, "%s::%s", ck->ns, name);
}

/* below this many symbols a scope is searched as a list */
enum { SCOPE_TABLE_MIN = 8 };

static uint64_t name_hash(const char *name) { return en_hash64(name, strlen(name), 0); }

/* the table slot holding `name`, or the empty slot where it would go */
static ck_sym **table_slot(ck_sym **table, int cap, const char *name) {
    size_t mask = (size_t)cap - 1;
    for (size_t i = (size_t)name_hash(name) & mask;; i = (i + 1) & mask)
        if (!table[i] || en_streq(table[i]->name, name)) return &table[i];
}

/* rebuilds the table at twice the size (or the first time); the list is the truth */
static void grow_table(checker *ck, ck_scope *sc) {
    int cap = sc->table_cap ? sc->table_cap * 2 : 4 * SCOPE_TABLE_MIN;
    ck_sym **table = en_alloc(ck->a, sizeof *table * (size_t)cap);
    if (ck->a->out_of_memory) {
        sc->table = NULL;
        sc->table_cap = 0;
        sc->table_failed = true;
        return;
    }
    /* oldest first would need the list reversed; instead keep the first (newest) symbol
     * seen for each name, which the list yields first */
    for (ck_sym *s = sc->syms; s; s = s->next) {
        if (!s->name) continue;
        ck_sym **slot = table_slot(table, cap, s->name);
        if (!*slot) *slot = s;
    }
    sc->table = table;
    sc->table_cap = cap;
}

ck_sym *ck_find_in_scope(const ck_scope *sc, const char *name) {
    if (!sc || !name) return NULL;
    if (sc->table) return *table_slot(sc->table, sc->table_cap, name);
    for (ck_sym *s = sc->syms; s; s = s->next)
        if (en_streq(s->name, name)) return s;
    return NULL;
}

ck_sym *ck_declare(checker *ck, ck_sym_kind kind, const char *name, en_loc loc) {
    ck_sym *s = en_alloc(ck->a, sizeof *s);
    s->kind = kind;
    s->loc = loc;
    bool global = ck->scope == ck->globals;
    s->name = global ? ck_qualify(ck, name) : name;
    /* after an allocation failure every allocation is one shared block: linking it
     * would make the list a cycle */
    if (ck->a->out_of_memory) return s;
    ck_scope *sc = ck->scope;
    s->older_same_name = ck_find_in_scope(sc, s->name);
    s->next = sc->syms;
    sc->syms = s;
    sc->sym_count++;
    if (sc->table_failed || !s->name) return s;
    if (sc->table) {
        /* at most half full keeps the probes short */
        if (sc->sym_count * 2 > sc->table_cap) grow_table(ck, sc);
        else *table_slot(sc->table, sc->table_cap, s->name) = s;
    } else if (sc->sym_count > SCOPE_TABLE_MIN) {
        grow_table(ck, sc);
    }
    return s;
}

static ck_sym *find_in(ck_scope *sc, const char *name) { return ck_find_in_scope(sc, name); }

static ck_sym *find_global(checker *ck, const char *name) {
    /* the enclosing namespaces, innermost first */
    const char *ns = ck->ns ? ck->ns : "";
    char *prefix = en_strdup(ck->a, ns);
    for (;;) {
        const char *q = prefix[0] ? en_fmt(ck->a, "%s::%s", prefix, name) : name;
        ck_sym *s = find_in(ck->globals, q);
        if (s) return s;
        if (!prefix[0]) break;
        char *cut = NULL;
        for (char *p = prefix; (p = strstr(p, "::")); p += 2) cut = p;
        if (cut) *cut = 0;
        else prefix[0] = 0;
    }
    for (int i = 0; i < ck->usings.count; i++) {
        ck_sym *s = find_in(ck->globals, en_fmt(ck->a, "%s::%s", ck->usings.items[i], name));
        if (s) return s;
    }
    return NULL;
}

static ck_sym *resolved(checker *ck, ck_sym *s) {
    if (s && s->kind == SYM_TYPE && s->lazy_typedef && !s->type) ck_resolve_lazy_typedef(ck, s);
    return s;
}

ck_sym *ck_lookup_str(checker *ck, const char *name) {
    if (!name) return NULL;
    while (strncmp(name, "metal::", 7) == 0) name += 7;
    if (!strstr(name, "::")) {
        for (ck_scope *sc = ck->scope; sc && sc != ck->globals; sc = sc->parent) {
            ck_sym *s = find_in(sc, name);
            if (s) return resolved(ck, s);
        }
    }
    ck_sym *s = find_global(ck, name);
    /* then namespace metal, which every MSL file sees (a built-in `using namespace metal`):
     * <metal_stdlib>'s type traits, a header's `namespace metal { bfloat tanh(bfloat); }` */
    if (!s) s = find_in(ck->globals, en_fmt(ck->a, "metal::%s", name));
    return resolved(ck, s);
}

/* the scope a qualifier names, as the prefix of the members' names: a qualifier that is a
 * struct type (S<float>::, or an alias of one: Loader::) names it by its IR name, which
 * its static members and member types are declared under (class.c) */
static ir_type *qualifier_prefix(checker *ck, const ast_name *n, int first, int upto, en_buf *b) {
    ast_name prefix = *n;
    prefix.count = upto + 1;
    bool typed = n->parts[upto].has_targs;
    if (!typed) {
        ck_sym *s = ck_lookup(ck, &prefix);
        typed = s && s->kind == SYM_TYPE && s->type && s->type->kind == IR_T_STRUCT;
    }
    ir_type *t = typed ? ck_type_name_lookup(ck, &prefix, false) : NULL;
    if (t && t->kind == IR_T_STRUCT && t->name) {
        b->len = 0;
        if (b->data) b->data[0] = 0;
        en_buf_puts(b, t->name);
        return t;
    }
    if (upto > first) en_buf_puts(b, "::");
    en_buf_puts(b, n->parts[upto].ident ? n->parts[upto].ident : "?");
    return NULL;
}

/* member `last` of struct t or, failing that, of its bases (depth-first, in order) */
static ck_sym *member_in_bases(checker *ck, ir_type *t, const char *last, int depth) {
    int field;
    for (int i = 0; depth < 16 && ck_struct_base(ck, t, i, &field); i++) {
        ir_type *b = ck_struct_base(ck, t, i, &field);
        ck_sym *s = ck_lookup_str(ck, en_fmt(ck->a, "%s::%s", b->name, last));
        if (!s) s = member_in_bases(ck, b, last, depth + 1);
        if (s) return s;
    }
    return NULL;
}

ck_sym *ck_lookup(checker *ck, const ast_name *n) {
    if (!n || n->count < 1 || !n->parts) return NULL;
    en_buf b = {0};
    int first = 0;
    while (first < n->count - 1 && n->parts[first].ident && en_streq(n->parts[first].ident, "metal"))
        first++;
    ir_type *qualifier = NULL;
    for (int i = first; i < n->count; i++) {
        if (i < n->count - 1) {
            qualifier = qualifier_prefix(ck, n, first, i, &b);
            continue;
        }
        if (i > first) en_buf_puts(&b, "::");
        en_buf_puts(&b, n->parts[i].ident ? n->parts[i].ident : "?");
    }
    const char *name = en_strdup(ck->a, b.data ? b.data : "");
    en_buf_free(&b);
    if (n->global) return find_in(ck->globals, name);
    ck_sym *s = ck_lookup_str(ck, name);
    if (!s && qualifier && n->count - first >= 2) s = member_in_bases(ck, qualifier, ast_name_last(n), 0);
    return s;
}

ck_fnctx ck_save_fn(checker *ck) {
    return (ck_fnctx){ck->fn, ck->block, ck->scope, ck->jumps, ck->control_depth,
                      ck->ret_type, ck->is_kernel, ck->ns, ck->inst_depth, ck->this_var,
                      ck->in_template};
}

void ck_restore_fn(checker *ck, ck_fnctx s) {
    ck->fn = s.fn;
    ck->block = s.block;
    ck->scope = s.scope;
    ck->jumps = s.jumps;
    ck->control_depth = s.control_depth;
    ck->ret_type = s.ret_type;
    ck->is_kernel = s.is_kernel;
    ck->ns = s.ns;
    ck->inst_depth = s.inst_depth;
    ck->this_var = s.this_var;
    ck->in_template = s.in_template;
}

void ck_emit(checker *ck, ir_stmt *s) {
    if (ck->block && s) ir_block_append(ck->m, ck->block, s);
}

ir_var *ck_temp_init(checker *ck, ir_type *t, ir_expr *init, en_loc loc) {
    ir_var *v = ir_temp(ck->m, ck->fn, t, loc);
    ck_emit(ck, ir_decl(ck->m, ck->fn, v, init, loc));
    return v;
}

ir_var *ck_temp(checker *ck, ir_type *t, en_loc loc) { return ck_temp_init(ck, t, NULL, loc); }

ir_module *en_check(en_ctx *c, const ast_unit *unit) {
    ir_module *m = ir_module_new(&c->arena, &c->sources);
    checker ck = {.c = c, .diags = &c->diags, .compile_diags = &c->diags, .a = &c->arena, .m = m, .ns = ""};
    ck_push_scope(&ck);
    ck.globals = ck.scope;
    if (!unit) return m;
    for (int i = 0; i < unit->decls.count; i++) {
        if (c->arena.out_of_memory) return NULL;
        ck_decl(&ck, unit->decls.items[i], true);
    }
    ck_check_definitions(&ck);
    if (c->arena.out_of_memory) return NULL;
    return m;
}
