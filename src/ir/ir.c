/* ir.c — IR construction: type interning, MSL layout, node builders. */
#include "ir.h"

#include <string.h>

/* ---- types ------------------------------------------------------------------------ */
static uint32_t scalar_size(ir_type_kind k) {
    switch (k) {
    case IR_T_BOOL: case IR_T_I8: case IR_T_U8: return 1;
    case IR_T_I16: case IR_T_U16: case IR_T_F16: case IR_T_BF16: return 2;
    case IR_T_I32: case IR_T_U32: case IR_T_F32: return 4;
    case IR_T_I64: case IR_T_U64: return 8;
    default: return 0;
    }
}

static ir_type *intern(ir_module *m, const ir_type *proto) {
    for (int i = 0; i < m->types.count; i++) {
        ir_type *t = m->types.items[i];
        if (t->kind == proto->kind && t->elem == proto->elem && t->count == proto->count &&
            t->packed == proto->packed && t->space == proto->space &&
            t->is_const == proto->is_const)
            return t;
    }
    ir_type *t = en_alloc(m->arena, sizeof *t);
    *t = *proto;
    EN_PUSH(m->arena, m->types, t);
    return t;
}

ir_type *ir_type_scalar(ir_module *m, ir_type_kind kind) {
    uint32_t s = scalar_size(kind);
    return intern(m, &(ir_type){.kind = kind, .size = s, .align = s ? s : 1});
}

ir_type *ir_type_vec(ir_module *m, ir_type *elem, uint32_t count, bool packed) {
    /* MSL: a vector of 3 occupies 4 lanes unless packed; alignment is its size */
    uint32_t lanes = (count == 3 && !packed) ? 4 : count;
    uint32_t size = elem->size * lanes;
    return intern(m, &(ir_type){.kind = IR_T_VEC, .elem = elem, .count = count, .packed = packed,
                                 .size = size, .align = packed ? elem->align : size});
}

ir_type *ir_type_array(ir_module *m, ir_type *elem, uint32_t count) {
    return intern(m, &(ir_type){.kind = IR_T_ARRAY, .elem = elem, .count = count,
                                 .size = elem->size * count, .align = elem->align});
}

ir_type *ir_type_ptr(ir_module *m, ir_type *pointee, ir_space space, bool is_const) {
    return intern(m, &(ir_type){.kind = IR_T_PTR, .elem = pointee, .space = space,
                                 .is_const = is_const, .size = 8, .align = 8});
}

ir_type *ir_type_atomic(ir_module *m, ir_type *elem) {
    return intern(m, &(ir_type){.kind = IR_T_ATOMIC, .elem = elem, .size = elem->size,
                                 .align = elem->align});
}

ir_type *ir_type_matrix(ir_module *m, ir_type *elem) {
    /* spread over the SIMD group's lanes: per thread, the two elements thread_elements()
     * names, laid out (and aligned) as a vec<T, 2> */
    return intern(m, &(ir_type){.kind = IR_T_SIMD_MATRIX, .elem = elem,
                                 .size = elem->size * 2, .align = elem->size * 2});
}

ir_type *ir_type_struct(ir_module *m, const char *name) {
    ir_type *t = en_alloc(m->arena, sizeof *t);
    t->kind = IR_T_STRUCT;
    t->name = en_strdup(m->arena, name);
    t->align = 1;
    t->struct_index = m->structs.count;
    EN_PUSH(m->arena, m->structs, t);
    return t;
}

void ir_struct_layout(ir_type *s) {
    uint32_t offset = 0, align = 1;
    for (int i = 0; i < s->field_count; i++) {
        ir_type *ft = s->fields[i].type;
        uint32_t a = ft->align ? ft->align : 1;
        offset = (offset + a - 1) / a * a;
        s->fields[i].offset = offset;
        offset += ft->size;
        if (a > align) align = a;
    }
    s->align = align;
    s->size = (offset + align - 1) / align * align;
}

bool ir_is_scalar(const ir_type *t) { return t && t->kind >= IR_T_BOOL && t->kind <= IR_T_F32; }
bool ir_is_integer(const ir_type *t) { return t && t->kind >= IR_T_I8 && t->kind <= IR_T_U64; }
bool ir_is_signed(const ir_type *t) {
    return t && (t->kind == IR_T_I8 || t->kind == IR_T_I16 || t->kind == IR_T_I32 ||
                 t->kind == IR_T_I64);
}
bool ir_is_float(const ir_type *t) { return t && t->kind >= IR_T_F16 && t->kind <= IR_T_F32; }
const ir_type *ir_scalar_of(const ir_type *t) { return t && t->kind == IR_T_VEC ? t->elem : t; }
int ir_lanes(const ir_type *t) { return t && t->kind == IR_T_VEC ? (int)t->count : 1; }

const char *ir_scalar_name(ir_type_kind k) {
    switch (k) {
    case IR_T_VOID: return "void";
    case IR_T_BOOL: return "bool";
    case IR_T_I8: return "char";
    case IR_T_U8: return "uchar";
    case IR_T_I16: return "short";
    case IR_T_U16: return "ushort";
    case IR_T_I32: return "int";
    case IR_T_U32: return "uint";
    case IR_T_I64: return "long";
    case IR_T_U64: return "ulong";
    case IR_T_F16: return "half";
    case IR_T_BF16: return "bfloat";
    case IR_T_F32: return "float";
    default: return "?";
    }
}

const char *ir_space_name(ir_space s) {
    switch (s) {
    case IR_SPACE_THREAD: return "thread";
    case IR_SPACE_THREADGROUP: return "threadgroup";
    case IR_SPACE_DEVICE: return "device";
    case IR_SPACE_CONSTANT: return "constant";
    }
    return "?";
}

const char *ir_type_name(const ir_type *t, en_arena *a) {
    if (!t) return "<null type>";
    switch (t->kind) {
    case IR_T_VEC:
        return en_fmt(a, "%s%s%u", t->packed ? "packed_" : "", ir_scalar_name(t->elem->kind), t->count);
    case IR_T_ARRAY:
        return en_fmt(a, "%s[%u]", ir_type_name(t->elem, a), t->count);
    case IR_T_STRUCT:
        return t->name;
    case IR_T_PTR:
        return en_fmt(a, "%s %s%s*", ir_space_name(t->space), t->is_const ? "const " : "",
                      ir_type_name(t->elem, a));
    case IR_T_ATOMIC:
        return en_fmt(a, "atomic_%s", ir_scalar_name(t->elem->kind));
    case IR_T_SIMD_MATRIX:
        return en_fmt(a, "simdgroup_%s8x8", ir_scalar_name(t->elem->kind));
    default:
        return ir_scalar_name(t->kind);
    }
}

const char *ir_attr_name(ir_attr a) {
    static const char *names[IR_ATTR_COUNT] = {
        [IR_ATTR_NONE] = "none",
        [IR_ATTR_THREAD_POSITION_IN_GRID] = "thread_position_in_grid",
        [IR_ATTR_THREADS_PER_GRID] = "threads_per_grid",
        [IR_ATTR_THREAD_POSITION_IN_THREADGROUP] = "thread_position_in_threadgroup",
        [IR_ATTR_THREADS_PER_THREADGROUP] = "threads_per_threadgroup",
        [IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP] = "dispatch_threads_per_threadgroup",
        [IR_ATTR_THREADGROUP_POSITION_IN_GRID] = "threadgroup_position_in_grid",
        [IR_ATTR_THREADGROUPS_PER_GRID] = "threadgroups_per_grid",
        [IR_ATTR_THREAD_INDEX_IN_THREADGROUP] = "thread_index_in_threadgroup",
        [IR_ATTR_THREAD_INDEX_IN_SIMDGROUP] = "thread_index_in_simdgroup",
        [IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP] = "simdgroup_index_in_threadgroup",
        [IR_ATTR_THREADS_PER_SIMDGROUP] = "threads_per_simdgroup",
        [IR_ATTR_SIMDGROUPS_PER_THREADGROUP] = "simdgroups_per_threadgroup",
        [IR_ATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP] = "dispatch_simdgroups_per_threadgroup",
        [IR_ATTR_THREAD_EXECUTION_WIDTH] = "thread_execution_width",
        [IR_ATTR_THREAD_INDEX_IN_QUADGROUP] = "thread_index_in_quadgroup",
        [IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP] = "quadgroup_index_in_threadgroup",
        [IR_ATTR_QUADGROUPS_PER_THREADGROUP] = "quadgroups_per_threadgroup",
        [IR_ATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP] = "dispatch_quadgroups_per_threadgroup",
    };
    return (unsigned)a < IR_ATTR_COUNT ? names[a] : "?";
}

const char *ir_op_name(ir_op op) {
    switch (op) {
    case IR_OP_NEG: case IR_OP_SUB: return "-";
    case IR_OP_NOT: return "!";
    case IR_OP_BITNOT: return "~";
    case IR_OP_ADD: return "+";
    case IR_OP_MUL: return "*";
    case IR_OP_DIV: return "/";
    case IR_OP_REM: return "%";
    case IR_OP_SHL: return "<<";
    case IR_OP_SHR: return ">>";
    case IR_OP_AND: return "&";
    case IR_OP_OR: return "|";
    case IR_OP_XOR: return "^";
    case IR_OP_EQ: return "==";
    case IR_OP_NE: return "!=";
    case IR_OP_LT: return "<";
    case IR_OP_LE: return "<=";
    case IR_OP_GT: return ">";
    case IR_OP_GE: return ">=";
    case IR_OP_LOGAND: return "&&";
    case IR_OP_LOGOR: return "||";
    case IR_OP_NONE: break;
    }
    return "?";
}

static const struct {
    const char *name;
    ir_intrinsic_class cls;
} intrinsic_table[IR_I_COUNT] = {
#define X(e, n, c) [IR_I_##e] = {n, IR_IC_##c},
#include "intrinsics.def"
#undef X
};

const char *ir_intrinsic_name(ir_intrinsic i) {
    return (unsigned)i < IR_I_COUNT ? intrinsic_table[i].name : "?";
}
ir_intrinsic_class ir_intrinsic_class_of(ir_intrinsic i) {
    return (unsigned)i < IR_I_COUNT ? intrinsic_table[i].cls : IR_IC_PURE;
}

/* ---- module and functions --------------------------------------------------------- */
ir_module *ir_module_new(en_arena *a, const en_sources *sources) {
    ir_module *m = en_alloc(a, sizeof *m);
    m->arena = a;
    m->sources = sources;
    return m;
}

ir_func *ir_func_new(ir_module *m, const char *name, en_loc loc) {
    ir_func *f = en_alloc(m->arena, sizeof *f);
    f->name = en_strdup(m->arena, name);
    f->loc = loc;
    f->return_type = ir_type_scalar(m, IR_T_VOID);
    f->body = ir_block(m, loc);
    EN_PUSH(m->arena, m->funcs, f);
    return f;
}

ir_func *ir_module_kernel(const ir_module *m, const char *name) {
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i]->is_kernel && en_streq(m->funcs.items[i]->name, name))
            return m->funcs.items[i];
    return NULL;
}

int ir_module_kernel_count(const ir_module *m) {
    int n = 0;
    for (int i = 0; i < m->funcs.count; i++) n += m->funcs.items[i]->is_kernel;
    return n;
}

const ir_func *ir_module_kernel_at(const ir_module *m, int index) {
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i]->is_kernel && index-- == 0) return m->funcs.items[i];
    return NULL;
}

/* ---- builders ---------------------------------------------------------------------- */
ir_var *ir_var_new(ir_module *m, ir_func *f, const char *name, ir_type *t, en_loc loc) {
    ir_var *v = en_alloc(m->arena, sizeof *v);
    v->id = f ? f->next_var_id++ : m->next_global_id++;
    v->name = name ? en_strdup(m->arena, name) : en_fmt(m->arena, "t%d", v->id);
    v->type = t;
    v->loc = loc;
    v->storage = f ? IR_VAR_LOCAL : IR_VAR_CONSTANT;
    return v;
}

ir_var *ir_temp(ir_module *m, ir_func *f, ir_type *t, en_loc loc) {
    return ir_var_new(m, f, NULL, t, loc);
}

ir_expr *ir_expr_new(ir_module *m, ir_expr_kind k, ir_type *t, en_loc loc, int arg_count) {
    ir_expr *e = en_alloc(m->arena, sizeof *e);
    e->kind = k;
    e->type = t;
    e->loc = loc;
    e->arg_count = arg_count;
    if (arg_count > 0) e->args = en_alloc(m->arena, sizeof(ir_expr *) * (size_t)arg_count);
    return e;
}

ir_expr *ir_const_int(ir_module *m, ir_type *t, int64_t v, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_CONST, t, loc, 0);
    e->c.i = v;
    return e;
}
ir_expr *ir_const_uint(ir_module *m, ir_type *t, uint64_t v, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_CONST, t, loc, 0);
    e->c.u = v;
    return e;
}
ir_expr *ir_const_float(ir_module *m, ir_type *t, double v, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_CONST, t, loc, 0);
    e->c.f = v;
    return e;
}
ir_expr *ir_const_bool(ir_module *m, bool v, en_loc loc) {
    return ir_const_uint(m, ir_type_scalar(m, IR_T_BOOL), v, loc);
}

ir_expr *ir_var_ref(ir_module *m, ir_var *v, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_VAR, v->type, loc, 0);
    e->var = v;
    return e;
}

ir_expr *ir_unary(ir_module *m, ir_op op, ir_type *t, ir_expr *a, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_UNARY, t, loc, 1);
    e->op = op;
    e->args[0] = a;
    return e;
}

ir_expr *ir_binary(ir_module *m, ir_op op, ir_type *t, ir_expr *a, ir_expr *b, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_BINARY, t, loc, 2);
    e->op = op;
    e->args[0] = a;
    e->args[1] = b;
    return e;
}

ir_expr *ir_index(ir_module *m, ir_type *t, ir_expr *base, ir_expr *index, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_INDEX, t, loc, 2);
    e->args[0] = base;
    e->args[1] = index;
    return e;
}

ir_expr *ir_deref(ir_module *m, ir_expr *ptr, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_DEREF, ptr->type->elem, loc, 1);
    e->args[0] = ptr;
    return e;
}

ir_expr *ir_convert(ir_module *m, ir_type *to, ir_expr *a, en_loc loc) {
    if (a->type == to) return a;
    ir_expr *e = ir_expr_new(m, IR_E_CONVERT, to, loc, 1);
    e->args[0] = a;
    return e;
}

ir_expr *ir_call(ir_module *m, ir_intrinsic i, ir_type *t, ir_expr **args, int n, en_loc loc) {
    ir_expr *e = ir_expr_new(m, IR_E_CALL, t, loc, n);
    e->intrinsic = i;
    for (int k = 0; k < n; k++) e->args[k] = args[k];
    return e;
}

ir_stmt *ir_stmt_new(ir_module *m, ir_stmt_kind k, en_loc loc) {
    ir_stmt *s = en_alloc(m->arena, sizeof *s);
    s->kind = k;
    s->loc = loc;
    return s;
}

ir_stmt *ir_block(ir_module *m, en_loc loc) { return ir_stmt_new(m, IR_S_BLOCK, loc); }

void ir_block_append(ir_module *m, ir_stmt *block, ir_stmt *s) {
    /* capacity is implicit: 4, then the next power of two once the count reaches one */
    int n = block->stmt_count;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        int cap = n ? n * 2 : 4;
        ir_stmt **items = en_alloc(m->arena, sizeof(ir_stmt *) * (size_t)cap);
        if (n) memcpy(items, block->stmts, sizeof(ir_stmt *) * (size_t)n);
        block->stmts = items;
    }
    block->stmts[block->stmt_count++] = s;
}

ir_stmt *ir_decl(ir_module *m, ir_func *f, ir_var *v, ir_expr *init, en_loc loc) {
    ir_stmt *s = ir_stmt_new(m, IR_S_DECL, loc);
    s->var = v;
    s->value = init;
    if (f) EN_PUSH(m->arena, f->locals, v);
    return s;
}

ir_stmt *ir_assign(ir_module *m, ir_expr *place, ir_expr *value, en_loc loc) {
    ir_stmt *s = ir_stmt_new(m, IR_S_ASSIGN, loc);
    s->place = place;
    s->value = value;
    return s;
}

ir_stmt *ir_if(ir_module *m, ir_expr *cond, ir_stmt *then_s, ir_stmt *else_s, en_loc loc) {
    ir_stmt *s = ir_stmt_new(m, IR_S_IF, loc);
    s->cond = cond;
    s->then_s = then_s;
    s->else_s = else_s;
    return s;
}

ir_stmt *ir_intrinsic_stmt(ir_module *m, ir_intrinsic i, ir_var *result, ir_expr **args, int n,
                           en_loc loc) {
    ir_stmt *s = ir_stmt_new(m, IR_S_INTRINSIC, loc);
    s->intrinsic = i;
    s->result = result;
    s->arg_count = n;
    s->args = en_alloc(m->arena, sizeof(ir_expr *) * (size_t)(n ? n : 1));
    for (int k = 0; k < n; k++) s->args[k] = args[k];
    return s;
}

bool ir_is_place(const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR: case IR_E_INDEX: case IR_E_FIELD: case IR_E_DEREF: return true;
    case IR_E_SWIZZLE: return ir_is_place(e->args[0]);
    default: return false;
    }
}

bool ir_stmt_any_in(const ir_stmt *s, bool (*holds)(const ir_stmt *, const void *ctx), const void *ctx) {
    if (!s) return false;
    if (holds(s, ctx)) return true;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (ir_stmt_any_in(s->stmts[i], holds, ctx)) return true;
        return false;
    case IR_S_IF: return ir_stmt_any_in(s->then_s, holds, ctx) || ir_stmt_any_in(s->else_s, holds, ctx);
    case IR_S_LOOP: return ir_stmt_any_in(s->body, holds, ctx) || ir_stmt_any_in(s->latch, holds, ctx);
    default: return false;
    }
}

typedef struct plain_test {
    bool (*holds)(const ir_stmt *);
} plain_test;
static bool holds_plain(const ir_stmt *s, const void *test) { return ((const plain_test *)test)->holds(s); }

bool ir_stmt_any(const ir_stmt *s, bool (*holds)(const ir_stmt *)) {
    plain_test test = {holds};
    return ir_stmt_any_in(s, holds_plain, &test);
}

typedef struct each_visit {
    void (*visit)(const ir_stmt *, void *ctx);
    void *ctx;
} each_visit;
static bool visit_one(const ir_stmt *s, const void *each) {
    const each_visit *e = each;
    e->visit(s, e->ctx);
    return false; /* on to the next */
}

void ir_stmt_each(const ir_stmt *s, void (*visit)(const ir_stmt *, void *ctx), void *ctx) {
    each_visit e = {visit, ctx};
    ir_stmt_any_in(s, visit_one, &e);
}

static bool jumps_to(const ir_stmt *s, const void *loop) {
    return (s->kind == IR_S_BREAK || s->kind == IR_S_CONTINUE) && s->target == loop;
}

bool ir_stmt_jumps_to(const ir_stmt *s, const ir_stmt *loop) { return ir_stmt_any_in(s, jumps_to, loop); }

const ir_var *ir_stepped_var(const ir_stmt *s, unsigned long long *step) {
    if (!s || s->kind != IR_S_ASSIGN || s->place->kind != IR_E_VAR) return NULL;
    const ir_var *v = s->place->var;
    const ir_expr *inc = s->value, *c = inc->kind == IR_E_BINARY ? inc->args[1] : NULL;
    if (inc->kind != IR_E_BINARY || inc->op != IR_OP_ADD || inc->args[0]->kind != IR_E_VAR || inc->args[0]->var != v ||
        c->kind != IR_E_CONST || !ir_is_integer(c->type))
        return NULL;
    long long value = ir_is_signed(c->type) ? (long long)c->c.i : (long long)c->c.u;
    if (value <= 0) return NULL;
    *step = (unsigned long long)value;
    return v;
}

bool ir_expr_any(const ir_expr *x, bool (*holds)(const ir_expr *, const void *ctx), const void *ctx) {
    if (!x) return false;
    if (holds(x, ctx)) return true;
    for (int i = 0; i < x->arg_count; i++)
        if (ir_expr_any(x->args[i], holds, ctx)) return true;
    return false;
}

bool ir_stmt_any_expr(const ir_stmt *s, bool (*holds)(const ir_expr *, const void *ctx), const void *ctx) {
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (ir_stmt_any_expr(s->stmts[i], holds, ctx)) return true;
        return false;
    case IR_S_DECL: case IR_S_RETURN: return ir_expr_any(s->value, holds, ctx);
    case IR_S_ASSIGN: return ir_expr_any(s->place, holds, ctx) || ir_expr_any(s->value, holds, ctx);
    case IR_S_IF:
        return ir_expr_any(s->cond, holds, ctx) || ir_stmt_any_expr(s->then_s, holds, ctx) ||
               ir_stmt_any_expr(s->else_s, holds, ctx);
    case IR_S_LOOP: return ir_stmt_any_expr(s->body, holds, ctx) || ir_stmt_any_expr(s->latch, holds, ctx);
    case IR_S_INTRINSIC: case IR_S_CALL:
        for (int i = 0; i < s->arg_count; i++)
            if (ir_expr_any(s->args[i], holds, ctx)) return true;
        return false;
    default: return false;
    }
}

void ir_each_kernel_alone(const ir_module *m,
                          void (*each)(const ir_module *alone, const ir_func *kernel, int index, void *ctx),
                          void *ctx) {
    ir_module alone = *m;
    int index = 0;
    for (int i = 0; i < m->funcs.count; i++) {
        ir_func *f = m->funcs.items[i];
        if (!f->is_kernel) continue;
        alone.funcs.items = &f;
        alone.funcs.count = alone.funcs.cap = 1;
        each(&alone, f, index++, ctx);
    }
}
