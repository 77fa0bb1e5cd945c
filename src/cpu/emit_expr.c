/* emit_expr.c — constants, expressions and memory accesses of one gang, as C for lane `l`.
 *
 * Needs: the kernel's variables classified (classify_vars, emit_region.c) and, while a
 * statement is emitted, em->mask naming the gang's execution mask (emit_stmt.c).
 * Guarantees: ex() is a C expression of one component of an IR expression for lane `l`;
 * loads and other whole values are hoisted into temporaries emitted before the statement,
 * so masked-off lanes never touch memory; emit_access() emits every load and store of
 * memory (checked mode's choke point) and takes the lane-affine fast path (lane_form_of,
 * place_form) where the address allows; const_init() gives program-scope initializers;
 * checked mode's site and object tables are filled here. */
#include "emit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- constants ---------------------------------------------------------------------- */
static const char *float_literal(emitter *em, double v, bool single) {
    if (isnan(v)) return "NAN";
    if (isinf(v)) return v < 0 ? "(-INFINITY)" : "INFINITY";
    return cpu_S(em, "%a%s", v, single ? "f" : "");
}

static const char *const_literal(emitter *em, const ir_type *t, ir_const c) {
    switch (t->kind) {
    case IR_T_BOOL: return c.u ? "true" : "false";
    case IR_T_I8: case IR_T_I16: case IR_T_I32: case IR_T_I64:
        if (c.i == INT64_MIN) return cpu_S(em, "((%s)INT64_MIN)", cpu_scalar_ctype(t->kind));
        return cpu_S(em, "((%s)%lldLL)", cpu_scalar_ctype(t->kind), (long long)c.i);
    case IR_T_U8: case IR_T_U16: case IR_T_U32: case IR_T_U64:
        return cpu_S(em, "((%s)%lluULL)", cpu_scalar_ctype(t->kind), (unsigned long long)c.u);
    case IR_T_F16: case IR_T_BF16: case IR_T_F32: return float_literal(em, c.f, true);
    default: return "0"; /* and the null pointer */
    }
}

/* host-side float -> half/bfloat bits, round to nearest even, for constant initializers */
static uint16_t host_f2h(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    uint32_t sign = (bits >> 16) & 0x8000u;
    float a = fabsf(x);
    if (isnan(x)) return (uint16_t)(sign | 0x7e00u);
    if (a >= 65520.0f) return (uint16_t)(sign | 0x7c00u);
    if (a < 0x1p-14f) { /* subnormal: units of 2^-24 */
        float q = rintf(a * 0x1p24f);
        return (uint16_t)(sign | (uint32_t)q);
    }
    int e;
    float m = frexpf(a, &e);            /* a = m * 2^e, m in [0.5, 1) */
    float q = rintf(m * 2048.0f);       /* 11 significant bits */
    if (q >= 2048.0f) { q /= 2; e++; }
    uint32_t exp = (uint32_t)(e - 1 + 15);
    if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | exp << 10 | ((uint32_t)q & 0x3ffu));
}
static uint16_t host_f2bf(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40u);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

/* a brace initializer (constant expression) for a program-scope constant */
EN_INTERNAL const char *cpu_const_init(emitter *em, const ir_expr *e) {
    if (!e) return "{0}";
    switch (e->kind) {
    case IR_E_CONST:
        if (e->type->kind == IR_T_F16) return cpu_S(em, "0x%04x", host_f2h((float)e->c.f));
        if (e->type->kind == IR_T_BF16) return cpu_S(em, "0x%04x", host_f2bf((float)e->c.f));
        return const_literal(em, e->type, e->c);
    case IR_E_CONVERT:
    case IR_E_BITCAST:
        if (e->args[0]->kind == IR_E_CONST) {
            ir_expr c = *e->args[0];
            c.type = e->type;
            if (ir_is_float(e->type) && !ir_is_float(e->args[0]->type))
                c.c.f = ir_is_signed(e->args[0]->type) ? (double)e->args[0]->c.i : (double)e->args[0]->c.u;
            return cpu_const_init(em, &c);
        }
        break;
    case IR_E_SPLAT:
    case IR_E_VECTOR:
    case IR_E_AGGREGATE: {
        en_buf b = {0};
        bool wrap = e->type->kind == IR_T_VEC || e->type->kind == IR_T_ARRAY;
        en_buf_puts(&b, wrap ? "{{" : "{");
        int n = e->kind == IR_E_SPLAT ? (int)e->type->count : e->arg_count;
        for (int i = 0; i < n; i++)
            en_buf_printf(&b, "%s%s", i ? ", " : "",
                          cpu_const_init(em, e->args[e->kind == IR_E_SPLAT ? 0 : i]));
        en_buf_puts(&b, wrap ? "}}" : "}");
        const char *r = cpu_S(em, "%s", b.data);
        en_buf_free(&b);
        return r;
    }
    default: break;
    }
    cpu_fail(em, e->loc, "a program-scope constant initializer that is not constant");
    return "{0}";
}

/* ---- expressions -------------------------------------------------------------------- *
 * ex(e, c) is a C expression, for lane `l`, of component c of e (c = -1: e is a scalar or
 * a pointer) in its computed type. Loads and other whole values it needs are hoisted
 * into temporaries emitted before the statement that uses them. */
static const char *whole(emitter *em, const ir_expr *e);

static const char *memo_find(emitter *em, const ir_expr *e) {
    for (int i = 0; i < em->memos.count; i++)
        if (em->memos.items[i].expr == e) return em->memos.items[i].temp;
    return NULL;
}
static void memo_add(emitter *em, const ir_expr *e, const char *temp) {
    EN_PUSH(&em->arena, em->memos, ((memo_entry){e, temp}));
}

static int comp_of(const ir_expr *operand, int comp) {
    return operand->type->kind == IR_T_VEC ? comp : -1;
}

/* does reading this place touch memory that a masked-off lane must not touch? */
EN_INTERNAL bool cpu_needs_access(const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR: return e->var->storage == IR_VAR_THREADGROUP;
    case IR_E_DEREF: return true;
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) return true;
        if (e->args[1]->kind != IR_E_CONST) return true;
        return ir_is_place(e->args[0]) ? cpu_needs_access(e->args[0]) : true;
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return ir_is_place(e->args[0]) ? cpu_needs_access(e->args[0]) : true;
    default: return false;
    }
}

EN_INTERNAL const char *cpu_var_lvalue(emitter *em, const ir_var *v) {
    var_info *vi = cpu_info_of(em, v);
    if (v == em->implicit_var) { /* read only: the phase never writes it (emit_interleaved_loop) */
        const char *T = cpu_scalar_ctype(v->type->kind);
        return cpu_S(em, "((%s)(%s + (%s)l))", T, em->implicit_base, T);
    }
    switch (vi->kind) {
    case VK_UNIFORM:
    case VK_GLOBAL: return vi->cname;
    case VK_THREADGROUP: return cpu_S(em, "_tg->%s", vi->cname);
    case VK_SCALAR: return vi->cname;
    case VK_SCALAR_SG: return cpu_S(em, "%s[_sg]", vi->cname);
    case VK_WIDE_ATTR: {
        const ir_type *t = v->type;
        if (t->kind != IR_T_VEC) return cpu_S(em, "((%s)%s)", cpu_scalar_ctype(t->kind), cpu_attr_value(em, v->attr, 0));
        en_buf b = {0};
        en_buf_printf(&b, "((%s){{", cpu_ctype(em, t));
        for (uint32_t c = 0; c < t->count; c++)
            en_buf_printf(&b, "%s(%s)%s", c ? ", " : "", cpu_scalar_ctype(t->elem->kind), cpu_attr_value(em, v->attr, (int)c));
        en_buf_puts(&b, "}})");
        const char *r = cpu_S(em, "%s", b.data);
        en_buf_free(&b);
        return r;
    }
    case VK_WIDE_EXPR:
        if (vi->cname) return vi->cname;
        return cpu_S(em, "((%s)%s)", cpu_ctype(em, v->type), cpu_ex(em, em->inits[v->id], -1));
    default: return cpu_S(em, "%s[l]", vi->cname);
    }
}

/* the C lvalue of a place for lane l (sub-expressions may hoist loads) */
static const char *read_place(emitter *em, const ir_expr *e, int comp);

EN_INTERNAL const char *cpu_lvalue(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR: return cpu_var_lvalue(em, e->var);
    case IR_E_DEREF: return cpu_S(em, "(*%s)", cpu_ex(em, e->args[0], -1));
    case IR_E_FIELD: {
        const ir_type *st = e->args[0]->type;
        const char *base = ir_is_place(e->args[0]) ? cpu_lvalue(em, e->args[0])
                                                   : cpu_S(em, "%s[l]", cpu_materialize(em, e->args[0]));
        return cpu_S(em, "%s.%s", base, cpu_ident(em, st->fields[e->field].name));
    }
    case IR_E_INDEX: {
        const ir_expr *base = e->args[0];
        const char *index = cpu_ex(em, e->args[1], -1);
        if (em->checked) EN_PUSH(&em->arena, em->index_texts, ((memo_entry){e, index}));
        if (base->type->kind == IR_T_PTR) return cpu_S(em, "%s[%s]", cpu_ex(em, base, -1), index);
        const char *b = ir_is_place(base) ? cpu_lvalue(em, base) : cpu_S(em, "%s[l]", cpu_materialize(em, base));
        return cpu_S(em, "%s.%s[%s]", b, base->type->kind == IR_T_VEC ? "v" : "a", index);
    }
    case IR_E_SWIZZLE: {
        const ir_expr *a = e->args[0];
        if (a->kind == IR_E_VAR && a->type->kind == IR_T_VEC && cpu_info_of(em, a->var)->kind == VK_WIDE_ATTR)
            return read_place(em, e, 0); /* read only: attributes are never assigned here */
        const char *b = ir_is_place(e->args[0]) ? cpu_lvalue(em, e->args[0])
                                                : cpu_S(em, "%s[l]", cpu_materialize(em, e->args[0]));
        return cpu_S(em, "%s.v[%d]", b, e->swizzle[0]);
    }
    default:
        return cpu_S(em, "%s[l]", cpu_materialize(em, e));
    }
}

/* Checked mode's hook for one access, given the variable holding its 32 lane addresses
 * (uintptr_t[32]) and the kind of access: returns the C expression of the lanes that may
 * touch memory. Unchecked code lets every active lane through. The checked-mode issue
 * fills this in (src/cpu/check_rt.h: the access hook); every load, store and atomic of
 * memory passes here, so nothing else needs instrumenting. */
/* ---- checked mode: sites and objects ---------------------------------------------------- */
/* a C string literal of text */
EN_INTERNAL const char *cpu_c_string(emitter *em, const char *text) {
    en_buf b = {0};
    en_buf_putc(&b, '"');
    for (const char *p = text ? text : "?"; *p; p++) {
        if (*p == '"' || *p == '\\') en_buf_putc(&b, '\\');
        en_buf_putc(&b, (unsigned char)*p < 32 ? ' ' : *p);
    }
    en_buf_putc(&b, '"');
    const char *r = cpu_S(em, "%s", b.data);
    en_buf_free(&b);
    return r;
}

/* a new entry of this kernel's site table; returns the C expression of its address */
EN_INTERNAL const char *cpu_site_ref(emitter *em, en_loc loc, int op, int space, int object, const char *size,
                                   const char *what) {
    if (op >= CPU_CHECK_LOAD && op <= CPU_CHECK_ATOMIC_RMW && space != IR_SPACE_THREAD) {
        if (object < 0 || object >= em->object_count) em->object_by_address = true;
        else if (op == CPU_CHECK_LOAD || op == CPU_CHECK_STORE) em->object_use[object] |= CPU_OBJECT_PLAIN_ACCESS;
    }
    en_buf_printf(&em->sites, "    {%d, %d, %d, %d, %d, %d, %s, %s},\n", loc.file, loc.line, loc.col, op, space, object,
                  size ? size : "0", cpu_c_string(em, what));
    return cpu_S(em, "&enk_sites_%d[%d]", em->kernel_index, em->site_count++);
}

/* the space of the memory a place reads or writes */
EN_INTERNAL ir_space cpu_place_space(const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        return e->var->storage == IR_VAR_THREADGROUP ? IR_SPACE_THREADGROUP
               : e->var->storage == IR_VAR_CONSTANT  ? IR_SPACE_CONSTANT
                                                     : IR_SPACE_THREAD;
    case IR_E_DEREF: return e->args[0]->type->kind == IR_T_PTR ? e->args[0]->type->space : IR_SPACE_THREAD;
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) return e->args[0]->type->space;
        return ir_is_place(e->args[0]) ? cpu_place_space(e->args[0]) : IR_SPACE_THREAD;
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return ir_is_place(e->args[0]) ? cpu_place_space(e->args[0]) : IR_SPACE_THREAD;
    default: return IR_SPACE_THREAD;
    }
}

/* the source name of the variable a place or pointer starts from */
EN_INTERNAL const char *cpu_root_name(const ir_expr *e) {
    while (e) {
        if (e->kind == IR_E_VAR) return e->var->name;
        if (e->arg_count == 0) return NULL;
        e = e->args[0];
    }
    return NULL;
}

static int place_object(emitter *em, const ir_expr *e);

/* which object of the kernel a pointer value points into, when the code says so; -1 */
EN_INTERNAL int cpu_pointer_object(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        if (e->var->storage != IR_VAR_LOCAL || e->var->id < 0 || e->var->id >= em->var_count) return -1;
        return em->object_of_var[e->var->id]; /* -2 while pointer_sources has not decided */
    case IR_E_PTR_OFFSET:
    case IR_E_PTRCAST: return cpu_pointer_object(em, e->args[0]);
    case IR_E_ADDR: return place_object(em, e->args[0]);
    case IR_E_CONST: return -2; /* the null pointer points nowhere: it leaves the merge alone */
    default: return -1;
    }
}

static int place_object(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        if (e->var->storage == IR_VAR_CONSTANT)
            return e->var->id >= 0 && e->var->id < em->m->next_global_id + 1 && em->object_of_global
                       ? em->object_of_global[e->var->id] : -1;
        if (e->var->storage == IR_VAR_THREADGROUP && e->var->id >= 0 && e->var->id < em->var_count)
            return em->object_of_var[e->var->id];
        return -1;
    case IR_E_DEREF: return cpu_pointer_object(em, e->args[0]);
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) return cpu_pointer_object(em, e->args[0]);
        return ir_is_place(e->args[0]) ? place_object(em, e->args[0]) : -1;
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return ir_is_place(e->args[0]) ? place_object(em, e->args[0]) : -1;
    default: return -1;
    }
}

/* Pointer variables (locals, and parameters the kernel reassigns) point into the object
 * that every value assigned to them points into, when they all agree: `device float *p =
 * data + k; p[i]` is judged against data. A fixed point over the kernel's assignments. */
static bool merge_pointer_source(emitter *em, const ir_var *v, const ir_expr *value) {
    if (!v || !value || v->type->kind != IR_T_PTR || v->storage != IR_VAR_LOCAL) return false;
    if (v->id < 0 || v->id >= em->var_count) return false;
    int *slot = &em->object_of_var[v->id], o = cpu_pointer_object(em, value);
    if (o == -2 || *slot == -1 || *slot == o) return false;
    *slot = *slot == -2 ? o : -1;
    return true;
}

static bool pointer_sources_in(emitter *em, const ir_stmt *s) {
    bool changed = false;
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) changed |= pointer_sources_in(em, s->stmts[i]);
        break;
    case IR_S_DECL: changed |= merge_pointer_source(em, s->var, s->value); break;
    case IR_S_ASSIGN:
        if (s->place->kind == IR_E_VAR) changed |= merge_pointer_source(em, s->place->var, s->value);
        break;
    case IR_S_IF:
        changed |= pointer_sources_in(em, s->then_s);
        changed |= pointer_sources_in(em, s->else_s);
        break;
    case IR_S_LOOP:
        changed |= pointer_sources_in(em, s->body);
        changed |= pointer_sources_in(em, s->latch);
        break;
    default: break;
    }
    return changed;
}

EN_INTERNAL void cpu_pointer_sources(emitter *em, const ir_func *f) {
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        if (v->type->kind == IR_T_PTR && v->id >= 0 && v->id < em->var_count && em->object_of_var[v->id] == -1)
            em->object_of_var[v->id] = -2;
    }
    for (int pass = 0; pass < 16 && pointer_sources_in(em, f->body); pass++) {}
    for (int i = 0; i < em->var_count; i++)
        if (em->object_of_var[i] == -2) em->object_of_var[i] = -1;
}

/* the site of a memory access to `place`, or NULL when it needs no check (thread memory) */
EN_INTERNAL const char *cpu_access_site(emitter *em, const ir_expr *place, int op, const char *ctype_name) {
    if (!em->checked || !place) return NULL;
    ir_space space = cpu_place_space(place);
    if (space == IR_SPACE_THREAD) return NULL;
    return cpu_site_ref(em, place->loc, op, (int)space, place_object(em, place), cpu_S(em, "sizeof(%s)", ctype_name),
                      cpu_root_name(place));
}

/* ---- checked mode: indices into thread memory ------------------------------------------ *
 * A thread's arrays and vectors are its own (one copy per lane, side by side in the gang's
 * storage), so an index past either end lands in another thread's copy, or in whatever lies
 * next to it, with no object for the access hook to judge it by. The index itself is
 * tested instead: every index along the place (a[i][j], s.a[i], v[i]), outermost first,
 * against its array's or vector's length, per active lane; a bad lane is reported and left
 * out of the access. Constant indices in range need no test (the front end rejects the
 * others where it sees them; inlining can still make one, through a reference). Through a
 * thread pointer only when its object is known (thread_pointer_extent: a local pointer
 * declared once to a local array's element or a local scalar, as inlining a helper that
 * takes `thread float *` makes); any other thread pointer is not checked. */

/* the source's name for an array or vector place: "a", "s.a", "m[i]", "p->a" */
static const char *array_name(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR: { /* a compiler-made variable's name is its source name, a dot and a number */
        const char *name = e->var->name ? e->var->name : "?", *dot = strchr(name, '.');
        return dot ? en_strndup(&em->arena, name, (size_t)(dot - name)) : name;
    }
    case IR_E_FIELD: {
        const ir_expr *b = e->args[0];
        const char *field = b->type->fields[e->field].name;
        if (b->kind == IR_E_DEREF) return cpu_S(em, "%s.%s", array_name(em, b->args[0]), field); /* a reference */
        if (!ir_is_place(b)) return cpu_S(em, "(value).%s", field);
        return cpu_S(em, "%s.%s", array_name(em, b), field);
    }
    case IR_E_INDEX: {
        const ir_expr *i = e->args[1];
        const char *base = ir_is_place(e->args[0]) || e->args[0]->kind == IR_E_VAR ? array_name(em, e->args[0]) : "(value)";
        if (i->kind == IR_E_CONST)
            return ir_is_signed(i->type) ? cpu_S(em, "%s[%lld]", base, (long long)i->c.i)
                                         : cpu_S(em, "%s[%llu]", base, (unsigned long long)i->c.u);
        if (i->kind == IR_E_VAR) return cpu_S(em, "%s[%s]", base, array_name(em, i));
        return cpu_S(em, "%s[...]", base);
    }
    case IR_E_DEREF: return cpu_S(em, "*%s", array_name(em, e->args[0]));
    default: return "(value)";
    }
}

static bool thread_pointer_extent(emitter *em, const ir_expr *ptr, const ir_expr **object, int64_t *start,
                                  uint64_t *length);

/* does this index of an array or vector (or a resolved thread pointer) need a run-time test? */
static bool index_needs_test(emitter *em, const ir_expr *e) {
    const ir_expr *i = e->args[1], *object;
    uint64_t length = e->args[0]->type->count;
    int64_t start = 0;
    if (i->kind != IR_E_CONST) return true;
    if (e->args[0]->type->kind == IR_T_PTR && !thread_pointer_extent(em, e->args[0], &object, &start, &length))
        return false;
    int64_t k = ir_is_signed(i->type) ? i->c.i : (int64_t)i->c.u;
    if (!ir_is_signed(i->type) && i->c.u > INT64_MAX) return true;
    return k + start < 0 || (uint64_t)(k + start) >= length;
}

/* A thread pointer that a local declares once and never changes, to an element of a local
 * array (`float *x = a;`, `&a[2]`, `a + 1`) or to a local scalar (`&m`): the array (or
 * scalar) it walks over and the element it starts at, so that x[k] is a[start + k]. Only
 * places that name one object with no run-time index; false for anything else (such
 * pointers are not checked). */
static bool same_elem_type(const ir_type *a, const ir_type *b) {
    return a == b || (a->kind == b->kind && a->kind != IR_T_STRUCT && a->kind != IR_T_ARRAY && a->size == b->size &&
                      a->count == b->count);
}
static bool static_local_place(const ir_expr *e) {
    while (e->kind == IR_E_FIELD) e = e->args[0];
    return e->kind == IR_E_VAR && e->var->storage == IR_VAR_LOCAL;
}
static bool thread_pointer_extent(emitter *em, const ir_expr *ptr, const ir_expr **object, int64_t *start,
                                  uint64_t *length) {
    if (ptr->kind != IR_E_VAR || ptr->type->kind != IR_T_PTR || ptr->type->space != IR_SPACE_THREAD) return false;
    const ir_var *v = ptr->var;
    if (v->storage != IR_VAR_LOCAL || v->is_assigned || v->id < 0 || v->id >= em->var_count) return false;
    const ir_expr *init = em->inits[v->id];
    int64_t offset = 0;
    if (init && init->kind == IR_E_PTR_OFFSET && init->args[1]->kind == IR_E_CONST) {
        const ir_expr *d = init->args[1];
        offset = ir_is_signed(d->type) ? d->c.i : (int64_t)d->c.u;
        init = init->args[0];
    }
    if (!init || init->kind != IR_E_ADDR) return false;
    const ir_expr *place = init->args[0];
    const ir_type *elem = ptr->type->elem;
    if (place->kind == IR_E_INDEX && place->args[0]->type->kind == IR_T_ARRAY && place->args[1]->kind == IR_E_CONST &&
        static_local_place(place->args[0]) && same_elem_type(place->type, elem)) {
        const ir_expr *i = place->args[1];
        *object = place->args[0];
        *start = offset + (ir_is_signed(i->type) ? i->c.i : (int64_t)i->c.u);
        *length = place->args[0]->type->count;
        return true;
    }
    if (static_local_place(place) && same_elem_type(place->type, elem)) {
        *object = place;
        *start = offset;
        *length = 1;
        return true;
    }
    return false;
}

/* the C text (lane l) of the index the address of e used */
static const char *index_text(emitter *em, const ir_expr *e) {
    for (int k = em->index_texts.count - 1; k >= 0; k--)
        if (em->index_texts.items[k].expr == e) return em->index_texts.items[k].temp;
    return cpu_ex(em, e->args[1], -1);
}

/* emits the test of one index for the lanes of `lanes`, a variable it narrows (NULL: the
 * mask's lanes, reported only); e indexes an array or vector, or a pointer that
 * thread_pointer_extent resolves */
static void emit_index_test(emitter *em, const ir_expr *e, const char *index, int op, const char *lanes) {
    const ir_expr *base = e->args[0], *object = base;
    int64_t start = 0;
    uint64_t length = base->type->count;
    bool via_pointer = base->type->kind == IR_T_PTR;
    if (via_pointer && !thread_pointer_extent(em, base, &object, &start, &length)) return;
    const char *what = cpu_S(em, "%s '%s'", object->type->kind == IR_T_VEC ? "vector"
                                            : object->type->kind == IR_T_ARRAY ? "array" : "variable",
                             array_name(em, object));
    if (via_pointer) what = cpu_S(em, "%s (through pointer '%s')", what, array_name(em, base));
    const char *site = cpu_site_ref(em, e->loc, op, IR_SPACE_THREAD, -1, cpu_S(em, "sizeof(%s)", cpu_ctype(em, e->type)),
                                    what);
    /* the index into the object: a pointer's starting element plus its index */
    const char *value = start ? cpu_S(em, "(uint64_t)((int64_t)(%s) + %lldLL)", index, (long long)start)
                              : cpu_S(em, "(uint64_t)(int64_t)(%s)", index);
    bool is_signed = ir_is_signed(e->args[1]->type) || start != 0;
    cpu_line(em, "for (int l = 0; l < 32; l++) if (ENK_ON(%s, l) && %s >= %lluu) { %s"
             "_cg->api->index(_cg->state, %s, _sg, l, %s, %d, %lluu); }",
             lanes ? lanes : em->mask, value, (unsigned long long)length,
             lanes ? cpu_S(em, "%s &= ~(1u << l); ", lanes) : "", site, value, is_signed ? 1 : 0,
             (unsigned long long)length);
}

/* the lanes of the mask whose every index along `place` is in range (checked mode, thread
 * memory); the mask itself when no index needs a test */
static const char *thread_index_lanes(emitter *em, const ir_expr *place, int op) {
    const ir_expr *chain[32];
    int n = 0;
    for (const ir_expr *e = place; e && n < (int)EN_COUNT(chain);) {
        if (e->kind == IR_E_INDEX) {
            const ir_expr *object;
            int64_t start;
            uint64_t length;
            if (e->args[0]->type->kind == IR_T_PTR) { /* checked when the pointer's object is known */
                if (thread_pointer_extent(em, e->args[0], &object, &start, &length)) chain[n++] = e;
                break;
            }
            chain[n++] = e;
        } else if (e->kind != IR_E_FIELD && e->kind != IR_E_SWIZZLE) {
            break;
        }
        if (!ir_is_place(e->args[0])) break;
        e = e->args[0];
    }
    const char *lanes = NULL;
    for (int k = n - 1; k >= 0; k--) { /* outermost first: a[i][j] tests i, then j */
        if (!index_needs_test(em, chain[k])) continue;
        const char *index = index_text(em, chain[k]);
        if (!lanes) {
            lanes = cpu_S(em, "_k%d", cpu_fresh(em));
            cpu_line(em, "uint32_t %s = %s; /* lanes whose indices into thread memory are in range */", lanes, em->mask);
        }
        emit_index_test(em, chain[k], index, op, lanes);
    }
    return lanes ? lanes : em->mask;
}

/* the site of an atomic operation (op: CPU_CHECK_ATOMIC_*) on a t through pointer ptr, or
 * NULL when it needs no check (thread memory) */
EN_INTERNAL const char *cpu_atomic_site(emitter *em, const ir_expr *ptr, const ir_type *t, int op) {
    if (ptr->type->kind != IR_T_PTR || ptr->type->space == IR_SPACE_THREAD) return NULL;
    return cpu_site_ref(em, ptr->loc, op, (int)ptr->type->space, cpu_pointer_object(em, ptr),
                        cpu_S(em, "sizeof(%s)", cpu_ctype(em, t)), cpu_root_name(ptr));
}

/* Checked mode: `site` is the place accessed, or for atomics the pointer; a uniform load
 * has one address (addrs[1]), given to the hook for every lane; em->store_values are a
 * store's 32 values (NULL otherwise). */

EN_INTERNAL const char *cpu_access_lanes(emitter *em, const ir_expr *site, const ir_type *t, const char *addrs,
                                     access_kind kind) {
    if (!em->checked) return em->mask;
    const char *values = kind == ACCESS_STORE ? em->store_values : NULL;
    bool atomic = kind == ACCESS_ATOMIC || kind == ACCESS_ATOMIC_LOAD || kind == ACCESS_ATOMIC_STORE;
    const char *where;
    if (atomic) {
        where = cpu_atomic_site(em, site, t,
                                kind == ACCESS_ATOMIC_LOAD    ? CPU_CHECK_ATOMIC_LOAD
                                : kind == ACCESS_ATOMIC_STORE ? CPU_CHECK_ATOMIC_STORE
                                                              : CPU_CHECK_ATOMIC_RMW);
        if (!where) return em->mask;
    } else {
        int op = kind == ACCESS_STORE ? CPU_CHECK_STORE : CPU_CHECK_LOAD;
        if (site && cpu_place_space(site) == IR_SPACE_THREAD) return thread_index_lanes(em, site, op);
        where = cpu_access_site(em, site, op, cpu_ctype(em, t));
        if (!where) return em->mask;
    }
    int id = cpu_fresh(em);
    if (kind == ACCESS_UNIFORM_LOAD) { /* every active lane reads the one address */
        cpu_line(em, "uintptr_t _u%d[32];", id);
        cpu_line(em, "for (int l = 0; l < 32; l++) _u%d[l] = %s[0];", id, addrs);
        addrs = cpu_S(em, "_u%d", id);
    }
    cpu_line(em, "uint32_t _k%d = _cg->api->access(_cg->state, %s, _sg, %s, %s, %s);", id, where, em->mask, addrs,
         values ? values : "NULL");
    return cpu_S(em, "_k%d", id);
}

/* ---- lane-affine addresses ----------------------------------------------------------- *
 * Where a gang's threads lie in its threadgroup: when the group is 1-D or its width is a
 * multiple of 16 (`_aff`, once per threadgroup), each half of the gang (lanes 0-15 and
 * 16-31) lies within one row, so thread_position_in_threadgroup.x is its value at the
 * half's first lane plus l % 16, and .y and .z are the same across the half. lane_form()
 * recognises integer expressions built from such attributes and uniform values with + - *
 * << and casts: value(l) = base[l / 16] + step * (l % 16), with base[] uniform C values
 * computed in the expression's own type (so they wrap exactly as the per-lane code does)
 * and step a compile-time constant. A local declared once from such values (`uint row =
 * pos.y;`) is replaced by its declaration's value. An access whose address has that form
 * and runs under a full mask needs no per-lane address array: step 1 is one or two vector
 * moves, step 0 (loads) one or two broadcasts. Off in checked mode. */
typedef struct lane_form {
    bool ok;
    const char *base[2]; /* the value at lanes 0 and 16 */
    int64_t step;
    const char *guard;   /* run-time conditions ("&& ..."), from per-lane index variables */
} lane_form;

typedef struct addr_form {
    bool ok;
    const char *ptr[2];  /* the address at lanes 0 and 16 */
    int64_t step;        /* in elements of the accessed type */
    const char *guard;   /* C conditions (each "&& ...") that no lane's index wraps */
    bool device;         /* device or constant memory: worth a software prefetch in loops */
} addr_form;

static const char *convert_expr(emitter *em, const ir_type *to, const ir_type *from, const char *a);

static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
/* does this C text read the lane variable `l`? (then it is not one value per gang) */
static bool mentions_lane(const char *c) {
    for (const char *p = c; *p; p++)
        if (*p == 'l' && (p == c || !is_ident_char(p[-1])) && !is_ident_char(p[1])) return true;
    return false;
}

static bool form_type_ok(const ir_type *t) {
    t = ir_scalar_of(t);
    return ir_is_integer(t) && (t->size == 4 || t->size == 8);
}

/* can a local's declared value be computed again anywhere (no memory, nothing assigned)? */
static bool reevaluable(emitter *em, const ir_expr *e, int depth) {
    if (depth > 6) return false;
    switch (e->kind) {
    case IR_E_CONST: return true;
    case IR_E_VAR: {
        const ir_var *v = e->var;
        if (v->storage != IR_VAR_LOCAL || v->is_assigned || v->address_taken) return false;
        var_kind k = cpu_info_of(em, v)->kind;
        if (k == VK_UNIFORM || k == VK_LANE_ATTR) return true;
        const ir_expr *init = v->id >= 0 && v->id < em->var_count ? em->inits[v->id] : NULL;
        return init && reevaluable(em, init, depth + 1);
    }
    case IR_E_SWIZZLE: case IR_E_BINARY: case IR_E_CONVERT: case IR_E_VECTOR: case IR_E_SPLAT:
        for (int i = 0; i < e->arg_count; i++)
            if (!reevaluable(em, e->args[i], depth + 1)) return false;
        return true;
    default: return false;
    }
}

static const lane_form no_form;

/* both sets of run-time conditions, each once */
static const char *join_guards(emitter *em, const char *a, const char *b) {
    if (!*b || strstr(a, b)) return a;
    if (!*a || strstr(b, a)) return b;
    return cpu_S(em, "%s%s", a, b);
}

static lane_form attr_form(emitter *em, const ir_var *v, int d) {
    int64_t step;
    switch (v->attr) {
    case IR_ATTR_THREAD_POSITION_IN_GRID:
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: step = d == 0; break;
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP: step = 1; break;
    default: return no_form;
    }
    /* valid while each half of the gang lies in one row of the group */
    lane_form f = {true, {NULL, NULL}, step, " && _aff"};
    for (int h = 0; h < 2; h++) {
        em->lane = h ? "16u" : "0u";
        f.base[h] = cpu_S(em, "((%s)%s)", cpu_scalar_ctype(ir_scalar_of(v->type)->kind), cpu_attr_value(em, v->attr, d));
        em->lane = NULL;
    }
    return f;
}

static lane_form lane_form_of(emitter *em, const ir_expr *e, int comp, int depth) {
    if (depth > 12 || !form_type_ok(e->type)) return no_form;
    const ir_type *t = ir_scalar_of(e->type);
    if (cpu_lane_invariant(em, e)) {
        const char *c = cpu_ex(em, e, comp);
        if (mentions_lane(c)) return no_form;
        return (lane_form){true, {c, c}, 0, ""};
    }
    switch (e->kind) {
    case IR_E_VAR: {
        const ir_var *v = e->var;
        var_kind k = cpu_info_of(em, v)->kind;
        if (v == em->stream_var || v == em->implicit_var) {
            const char *T = cpu_scalar_ctype(t->kind), *base = v == em->stream_var ? em->stream_base : em->implicit_base;
            return (lane_form){true, {base, cpu_S(em, "((%s)(%s + 16u))", T, base)}, 1, ""};
        }
        if (k == VK_LANE_ATTR) return attr_form(em, v, comp < 0 ? 0 : comp);
        const ir_expr *init = v->id >= 0 && v->id < em->var_count ? em->inits[v->id] : NULL;
        if (v->storage == IR_VAR_LOCAL && !v->is_assigned && !v->address_taken && init && reevaluable(em, init, 0))
            return lane_form_of(em, init, comp, depth + 1);
        if ((k == VK_GANG || k == VK_CONTEXT) && ir_is_scalar(v->type) && v->type->kind == t->kind) {
            /* a per-lane index variable (a grid-stride loop's i): its lanes are tested at run time */
            int bits = (int)t->size * 8;
            const char *cname = cpu_info_of(em, v)->cname;
            return (lane_form){true, {cpu_S(em, "%s[0]", cname), cpu_S(em, "%s[16]", cname)}, 1,
                               cpu_S(em, " && enk_halves_consecutive_u%d((const uint%d_t *)%s)", bits, bits, cname)};
        }
        return no_form;
    }
    case IR_E_SWIZZLE:
        if (e->args[0]->type->kind != IR_T_VEC) return no_form;
        return lane_form_of(em, e->args[0], e->swizzle[comp < 0 ? 0 : comp], depth + 1);
    case IR_E_VECTOR: return lane_form_of(em, e->args[comp < 0 ? 0 : comp], -1, depth + 1);
    case IR_E_SPLAT: return lane_form_of(em, e->args[0], -1, depth + 1);
    case IR_E_CONVERT: {
        const ir_expr *a = e->args[0];
        lane_form f = lane_form_of(em, a, comp_of(a, comp), depth + 1);
        if (!f.ok || (f.step && ir_scalar_of(a->type)->size != t->size)) return no_form;
        for (int h = 0; h < 2; h++) f.base[h] = convert_expr(em, t, ir_scalar_of(a->type), f.base[h]);
        return f;
    }
    case IR_E_BINARY: {
        const ir_expr *x = e->args[0], *y = e->args[1];
        if (e->op != IR_OP_ADD && e->op != IR_OP_SUB && e->op != IR_OP_MUL && e->op != IR_OP_SHL) return no_form;
        lane_form a = lane_form_of(em, x, comp_of(x, comp), depth + 1);
        if (!a.ok) return no_form;
        lane_form b = lane_form_of(em, y, comp_of(y, comp), depth + 1);
        if (!b.ok) return no_form;
        int64_t step = 0;
        switch (e->op) {
        case IR_OP_ADD: step = a.step + b.step; break;
        case IR_OP_SUB: step = a.step - b.step; break;
        case IR_OP_MUL:
            if (a.step && b.step) return no_form;
            if (a.step || b.step) { /* the other factor must be a literal */
                const ir_expr *k = a.step ? y : x;
                if (k->kind != IR_E_CONST) return no_form;
                int64_t c = ir_is_signed(k->type) ? k->c.i : (int64_t)k->c.u;
                if (c < -(1 << 20) || c > (1 << 20)) return no_form;
                step = (a.step ? a.step : b.step) * c;
            }
            break;
        default: /* SHL */
            if (b.step) return no_form;
            if (a.step) {
                if (y->kind != IR_E_CONST || y->c.u > 16) return no_form;
                step = a.step << y->c.u;
            }
            break;
        }
        if (step < -(1 << 20) || step > (1 << 20)) return no_form;
        lane_form f = {true, {NULL, NULL}, step, join_guards(em, a.guard, b.guard)};
        for (int h = 0; h < 2; h++) f.base[h] = cpu_binary_expr(em, e->op, t, a.base[h], b.base[h]);
        return f;
    }
    default: return no_form;
    }
}

/* the address of a place whose lanes' addresses have a lane form (see above) */
static addr_form place_form(emitter *em, const ir_expr *e, int depth) {
    addr_form none = {0};
    if (depth > 8) return none;
    switch (e->kind) {
    case IR_E_VAR: {
        var_kind k = cpu_info_of(em, e->var)->kind;
        if (k != VK_THREADGROUP && k != VK_GLOBAL) return none;
        const char *p = cpu_S(em, "(&%s)", cpu_var_lvalue(em, e->var));
        return (addr_form){true, {p, p}, 0, "", false};
    }
    case IR_E_DEREF: {
        const ir_expr *ptr = e->args[0];
        if (!cpu_lane_invariant(em, ptr)) return none;
        const char *p = cpu_ex(em, ptr, -1);
        if (mentions_lane(p)) return none;
        bool dev = ptr->type->space == IR_SPACE_DEVICE || ptr->type->space == IR_SPACE_CONSTANT;
        return (addr_form){true, {p, p}, 0, "", dev};
    }
    case IR_E_FIELD: {
        if (!ir_is_place(e->args[0])) return none;
        addr_form b = place_form(em, e->args[0], depth + 1);
        if (!b.ok || b.step) return none;
        const char *name = cpu_ident(em, e->args[0]->type->fields[e->field].name);
        for (int h = 0; h < 2; h++) b.ptr[h] = cpu_S(em, "(&(*%s).%s)", b.ptr[h], name);
        return b;
    }
    case IR_E_INDEX: {
        const ir_expr *base = e->args[0];
        lane_form i = lane_form_of(em, e->args[1], -1, 0);
        if (!i.ok || i.step < 0) return none;
        const ir_type *it = ir_scalar_of(e->args[1]->type);
        const char *guard = i.guard;
        if (i.step) { /* lanes j = 0..15 of each half add up to 15 * step: no wrap */
            const char *max = ir_is_signed(it) ? (it->size == 8 ? "INT64_MAX" : "INT32_MAX")
                                               : (it->size == 8 ? "UINT64_MAX" : "UINT32_MAX");
            const char *T = cpu_scalar_ctype(it->kind);
            guard = cpu_S(em, "%s && %s <= (%s)(%s - %lld) && %s <= (%s)(%s - %lld)", guard, i.base[0], T, max,
                      (long long)(15 * i.step), i.base[1], T, max, (long long)(15 * i.step));
        }
        addr_form f;
        if (base->type->kind == IR_T_PTR) {
            if (!cpu_lane_invariant(em, base)) return none;
            const char *p = cpu_ex(em, base, -1);
            if (mentions_lane(p)) return none;
            f = (addr_form){true, {NULL, NULL}, i.step, guard,
                            base->type->space == IR_SPACE_DEVICE || base->type->space == IR_SPACE_CONSTANT};
            for (int h = 0; h < 2; h++) f.ptr[h] = cpu_S(em, "(&(%s)[%s])", p, i.base[h]);
            return f;
        }
        if (!ir_is_place(base)) return none;
        f = place_form(em, base, depth + 1);
        if (!f.ok || f.step) return none;
        const char *sel = base->type->kind == IR_T_VEC ? "v" : "a";
        for (int h = 0; h < 2; h++) f.ptr[h] = cpu_S(em, "(&(*%s).%s[%s])", f.ptr[h], sel, i.base[h]);
        f.step = i.step;
        f.guard = join_guards(em, f.guard, guard);
        return f;
    }
    default: return none;
    }
}

/* Does checked mode instrument this access? The fast path has no per-lane address array
 * for the hook to see, so an access the hook would instrument keeps the general path. The
 * hook is asked with its output set aside: it instruments when it emits code or narrows
 * the mask. (Generated C is then the same as unchecked until checked mode instruments.)
 * Asked in checked builds only, so the hook may keep state (site numbers...) without
 * unchecked builds paying for it; a probe that it does not instrument must leave none. */
static bool access_hooked(emitter *em, const ir_expr *place, const ir_type *t, bool is_store) {
    en_buf probe = {0}, *out = em->out;
    int indent = em->indent;
    em->out = &probe;
    const char *lanes = cpu_access_lanes(em, place, t, "_a_probe", is_store ? ACCESS_STORE : ACCESS_LOAD);
    em->out = out;
    em->indent = indent;
    bool hooked = probe.len != 0 || strcmp(lanes, em->mask) != 0;
    en_buf_free(&probe);
    return hooked;
}

/* A grid-stride loop jumps far between iterations, beyond what the hardware prefetcher
 * follows: track this load site's stride (from `addr`, the first lane's address as an
 * uintptr_t) and prefetch the 128 bytes the gang will read 8 iterations on. In an
 * interleaved phase the SIMD groups take turns at the site, so each has its own tracker.
 * The lines go to L2, not L1: 8 steps ahead of every SIMD group of a threadgroup is up to
 * 32 KiB in flight, which would crowd L1 out (bench/NOTES-cpu.md, change 5). */
static void emit_prefetch(emitter *em, const char *addr) {
    int site = em->prefetch_sites;
    em->prefetch_sites += em->interleaving ? 32 : 1;
    const char *slot = em->interleaving ? cpu_S(em, "_pf[%d + _sg]", site) : cpu_S(em, "_pf[%d]", site);
    cpu_line(em, "{ uintptr_t _at = %s; intptr_t _d = (intptr_t)(_at - %s); %s = _at;", addr, slot, slot);
    cpu_line(em, "  if (_d > 256 && _d < (1 << 24)) { __builtin_prefetch((char *)_at + 8 * _d, 0, 2); "
             "__builtin_prefetch((char *)_at + 8 * _d + 64, 0, 2); } }");
}

/* open_affine_access in checked mode: the 32 lanes consecutive (both halves' runs one run)
 * take the hook for consecutive addresses (access_run: no address array, a range test in
 * O(1)) and a vector move, or a per-lane one for the lanes the hook lets through. Any mask:
 * the lanes that do not run have addresses too (the form's), which the hook does not look
 * at, so a tree level's `if (lid < s)` takes it as well as a full SIMD group. */
static bool open_checked_run(emitter *em, const ir_expr *place, const ir_type *t, bool is_store, const char *temp,
                             const addr_form *f) {
    const char *ct = cpu_ctype(em, t), *at = cpu_access_ctype(em, t);
    const char *site = cpu_access_site(em, place, is_store ? CPU_CHECK_STORE : CPU_CHECK_LOAD, ct);
    if (!site) return false;
    int id = cpu_fresh(em);
    OPEN("if ((%s *)%s == (%s *)%s + 16%s) { /* lane-affine address: one run of 32 elements */", at, f->ptr[1], at,
         f->ptr[0], f->guard);
    cpu_line(em, "%s *_p%d = (%s *)%s;", at, id, at, f->ptr[0]);
    cpu_line(em, "uint32_t _k%d = _cg->api->access_run(_cg->state, %s, _sg, %s, (uintptr_t)_p%d, %s);", id, site,
             em->mask, id, is_store ? temp : "NULL");
    if (!is_store && f->device && (em->loops.count > 0 || em->interleaving))
        emit_prefetch(em, cpu_S(em, "(uintptr_t)_p%d", id));
    if (is_store) {
        cpu_line(em, "if (_k%d == ENK_FULL) for (int l = 0; l < 32; l++) _p%d[l] = %s[l];", id, id, temp);
        cpu_line(em, "else for (int l = 0; l < 32; l++) if (ENK_ON(_k%d, l)) _p%d[l] = %s[l];", id, id, temp);
    } else {
        cpu_line(em, "if (_k%d == ENK_FULL) for (int l = 0; l < 32; l++) %s[l] = _p%d[l];", id, temp, id);
        cpu_line(em, "else for (int l = 0; l < 32; l++) %s[l] = ENK_ON(_k%d, l) ? _p%d[l] : (%s){0};", temp, id, id, ct);
    }
    em->indent--;
    OPEN("} else {");
    return true;
}

/* Opens the lane-affine fast path of an access when its address has a lane form: emits
 * `if (full mask && _aff && no wrap) { vector moves } else {` and returns true; the
 * caller's general code follows and closes the brace. */
static bool open_affine_access(emitter *em, const ir_expr *place, const ir_type *t, bool is_store,
                               const char *temp) {
    if (!em->fast_paths || !place || place->type != t || (t->kind == IR_T_VEC && t->count == 3 && !t->packed))
        return false;
    bool hooked = em->checked && access_hooked(em, place, t, is_store);
    addr_form f = place_form(em, place, 0);
    if (!f.ok || f.step > 1 || (is_store && f.step == 0) || (hooked && f.step != 1)) return false;
    if (hooked) return open_checked_run(em, place, t, is_store, temp, &f);
    const char *ct = cpu_ctype(em, t), *at = cpu_access_ctype(em, t);
    int id = cpu_fresh(em);
    OPEN("if (%s == ENK_FULL%s) { /* lane-affine address: %s per half of the gang */", em->mask,
         f.guard, f.step ? "consecutive elements" : "one element");
    cpu_line(em, "%s *_p%d = (%s *)%s, *_q%d = (%s *)%s; /* lanes 0 and 16 */", at, id, at, f.ptr[0], id, at,
             f.ptr[1]);
    if (!is_store && f.device && (em->loops.count > 0 || em->interleaving))
        emit_prefetch(em, cpu_S(em, "(uintptr_t)_p%d", id));
    if (f.step == 0) {
        cpu_line(em, "%s _v%d = *_p%d, _w%d = *_q%d;", ct, id, id, id, id);
        cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = l < 16 ? _v%d : _w%d;", temp, id, id);
    } else if (is_store) {
        cpu_line(em, "if (_q%d == _p%d + 16) for (int l = 0; l < 32; l++) _p%d[l] = %s[l];", id, id, id, temp);
        OPEN("else { /* lanes in order: where the halves overlap, the later lane's value stays */");
        cpu_line(em, "for (int l = 0; l < 16; l++) _p%d[l] = %s[l];", id, temp);
        cpu_line(em, "for (int l = 0; l < 16; l++) _q%d[l] = %s[l + 16];", id, temp);
        CLOSE();
    } else {
        cpu_line(em, "if (_q%d == _p%d + 16) for (int l = 0; l < 32; l++) %s[l] = _p%d[l];", id, id, temp, id);
        cpu_line(em, "else for (int l = 0; l < 16; l++) { %s[l] = _p%d[l]; %s[l + 16] = _q%d[l]; }", temp, id, temp, id);
    }
    em->indent--;
    OPEN("} else {");
    return true;
}

/* THE memory-access choke point. Every load and store of device, constant, threadgroup or
 * dynamically indexed memory is emitted here: addresses per lane, then a full-mask
 * contiguous fast path, else a masked per-lane loop. Checked mode instruments here. */
EN_INTERNAL void cpu_emit_access(emitter *em, const ir_expr *place, const ir_type *t, const char *addr,
                             bool is_store, const char *temp) {
    const char *ct = cpu_ctype(em, t), *at = cpu_access_ctype(em, t);
    int id = cpu_fresh(em);
    if (!is_store) cpu_line(em, "%s %s[32];", ct, temp);
    bool affine = open_affine_access(em, place, t, is_store, temp);
    OPEN("{ /* %s of %s */", is_store ? "store" : "load", ir_type_name(t, &em->arena));
    cpu_line(em, "uintptr_t _a%d[32];", id);
    cpu_line(em, "for (int l = 0; l < 32; l++) _a%d[l] = (uintptr_t)(%s);", id, addr);
    const char *outer_mask = em->mask;
    em->store_values = is_store ? temp : NULL;
    em->mask = cpu_access_lanes(em, place, t, cpu_S(em, "_a%d", id), is_store ? ACCESS_STORE : ACCESS_LOAD);
    em->store_values = NULL;
    OPEN("if (%s == ENK_FULL && enk_contiguous(_a%d, sizeof(%s))) {", em->mask, id, ct);
    cpu_line(em, "%s *_b%d = (%s *)_a%d[0];", at, id, at, id);
    if (!is_store && (em->loops.count > 0 || em->interleaving)) emit_prefetch(em, cpu_S(em, "_a%d[0]", id));
    if (is_store) cpu_line(em, "for (int l = 0; l < 32; l++) _b%d[l] = %s[l];", id, temp);
    else cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = _b%d[l];", temp, id);
    em->indent--;
    OPEN("} else if (%s == ENK_FULL) { /* every lane: an unmasked gather/scatter */", em->mask);
    if (is_store)
        cpu_line(em, "for (int l = 0; l < 32; l++) *(%s *)_a%d[l] = %s[l];", at, id, temp);
    else
        cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = *(%s *)_a%d[l];", temp, at, id);
    em->indent--;
    OPEN("} else {");
    if (is_store)
        cpu_line(em, "for (int l = 0; l < 32; l++) if (ENK_ON(%s, l)) *(%s *)_a%d[l] = %s[l];", em->mask,
             at, id, temp);
    else
        cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = ENK_ON(%s, l) ? *(%s *)_a%d[l] : (%s){0};",
             temp, em->mask, at, id, ct);
    CLOSE();
    CLOSE();
    em->mask = outer_mask;
    if (affine) CLOSE();
}

/* the same choke point for a load whose address is the same in every lane */
static void emit_uniform_load(emitter *em, const ir_expr *place, const ir_type *t, const char *addr,
                              const char *temp) {
    const char *ct = cpu_ctype(em, t);
    int id = cpu_fresh(em);
    cpu_line(em, "%s %s = (%s){0}; /* uniform load of %s */", ct, temp, ct, ir_type_name(t, &em->arena));
    cpu_line(em, "uintptr_t _a%d[1] = {(uintptr_t)(%s)};", id, addr);
    const char *lanes = cpu_access_lanes(em, place, t, cpu_S(em, "_a%d", id), ACCESS_UNIFORM_LOAD);
    cpu_line(em, "if (%s) %s = *(%s *)_a%d[0];", lanes, temp, cpu_access_ctype(em, t), id);
}

/* does e compute the same value in every lane (no per-lane variable in it)? */
EN_INTERNAL bool cpu_lane_invariant(emitter *em, const ir_expr *e) {
    if (e->kind == IR_E_VAR) {
        var_kind k = cpu_info_of(em, e->var)->kind;
        return k == VK_UNIFORM || k == VK_GLOBAL || k == VK_THREADGROUP || k == VK_SCALAR || k == VK_SCALAR_SG;
    }
    for (int i = 0; i < e->arg_count; i++)
        if (!cpu_lane_invariant(em, e->args[i])) return false;
    return true;
}

/* a load as a gang array: "_tN" */
static const char *load_array(emitter *em, const ir_expr *e) {
    const char *memo = memo_find(em, e);
    if (memo && memo[strlen(memo) - 1] == ']') return en_strndup(&em->arena, memo, strlen(memo) - 3);
    const char *addr = cpu_S(em, "&%s", cpu_lvalue(em, e));
    const char *temp = cpu_S(em, "_t%d", cpu_fresh(em));
    cpu_emit_access(em, e, e->type, addr, false, temp);
    memo_add(em, e, cpu_S(em, "%s[l]", temp));
    return temp;
}

/* a load, as the C expression that reads it for lane l: "_tN[l]", or "_tN" when every
 * lane reads the same address (one scalar load instead of 32) */
static const char *load_value(emitter *em, const ir_expr *e) {
    const char *memo = memo_find(em, e);
    if (memo) return memo;
    if (!cpu_lane_invariant(em, e)) {
        load_array(em, e);
        return memo_find(em, e);
    }
    const char *addr = cpu_S(em, "&%s", cpu_lvalue(em, e));
    const char *temp = cpu_S(em, "_t%d", cpu_fresh(em));
    emit_uniform_load(em, e, e->type, addr, temp);
    memo_add(em, e, temp);
    return temp;
}

/* a whole value into a gang temporary (storage representation) */
EN_INTERNAL const char *cpu_materialize(emitter *em, const ir_expr *e) {
    const char *memo = memo_find(em, e);
    if (memo) return memo;
    if (ir_is_place(e) && e->kind != IR_E_SWIZZLE && cpu_needs_access(e) && !cpu_lane_invariant(em, e))
        return load_array(em, e);
    const char *temp = cpu_S(em, "_t%d", cpu_fresh(em));
    const ir_type *t = e->type;
    if (e->kind == IR_E_BITCAST) {
        const char *src = cpu_materialize(em, e->args[0]);
        cpu_line(em, "%s %s[32];", cpu_ctype(em, t), temp);
        cpu_line(em, "for (int l = 0; l < 32; l++) memcpy(&%s[l], &%s[l], sizeof %s[l]);", temp, src, temp);
    } else if (t->kind == IR_T_VEC) {
        const char **comps = en_alloc(&em->arena, sizeof(char *) * t->count);
        for (uint32_t c = 0; c < t->count; c++) comps[c] = cpu_to_storage(em, t->elem, cpu_ex(em, e, (int)c));
        cpu_line(em, "%s %s[32];", cpu_ctype(em, t), temp);
        OPEN("for (int l = 0; l < 32; l++) {");
        for (uint32_t c = 0; c < t->count; c++) cpu_line(em, "%s[l].v[%u] = %s;", temp, c, comps[c]);
        CLOSE();
    } else {
        const char *v = whole(em, e);
        cpu_line(em, "%s %s[32];", cpu_ctype(em, t), temp);
        cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = %s;", temp, v);
    }
    memo_add(em, e, temp);
    return temp;
}

/* a place read: component comp (or the scalar) in its computed type */
static const char *read_place(emitter *em, const ir_expr *e, int comp) {
    if (e->kind == IR_E_SWIZZLE && e->args[0]->type->kind == IR_T_VEC)
        return read_place(em, e->args[0], e->swizzle[comp < 0 ? 0 : comp]);
    const ir_type *t = e->type;
    if (e->kind == IR_E_VAR && t->kind == IR_T_VEC && cpu_info_of(em, e->var)->kind == VK_WIDE_ATTR)
        /* a component of a position in wide mode: the value itself, not a compound literal
         * (an addressable temporary that keeps gcc from vectorising) */
        return cpu_S(em, "((%s)%s)", cpu_scalar_ctype(t->elem->kind), cpu_attr_value(em, e->var->attr, comp < 0 ? 0 : comp));
    const char *base = cpu_needs_access(e) ? load_value(em, e) : cpu_lvalue(em, e);
    if (t->kind == IR_T_VEC) {
        if (comp < 0) comp = 0;
        return cpu_from_storage(em, t->elem, cpu_S(em, "%s.v[%d]", base, comp));
    }
    return cpu_from_storage(em, t, base);
}

/* the whole value in storage representation (any type) */
static const char *whole(emitter *em, const ir_expr *e) {
    const ir_type *t = e->type;
    if (ir_is_place(e) && !(e->kind == IR_E_SWIZZLE)) {
        if (cpu_needs_access(e)) return load_value(em, e);
        return cpu_lvalue(em, e);
    }
    switch (t->kind) {
    case IR_T_VEC: {
        en_buf b = {0};
        en_buf_printf(&b, "((%s){{", cpu_ctype(em, t));
        for (uint32_t c = 0; c < t->count; c++)
            en_buf_printf(&b, "%s%s", c ? ", " : "", cpu_to_storage(em, t->elem, cpu_ex(em, e, (int)c)));
        en_buf_puts(&b, "}})");
        const char *r = cpu_S(em, "%s", b.data);
        en_buf_free(&b);
        return r;
    }
    case IR_T_STRUCT:
    case IR_T_ARRAY:
        if (e->kind == IR_E_AGGREGATE) {
            en_buf b = {0};
            bool arr = t->kind == IR_T_ARRAY;
            en_buf_printf(&b, "((%s){%s", cpu_ctype(em, t), arr ? "{" : "");
            for (int i = 0; i < e->arg_count; i++)
                en_buf_printf(&b, "%s%s", i ? ", " : "", whole(em, e->args[i]));
            en_buf_printf(&b, "%s})", arr ? "}" : "");
            const char *r = cpu_S(em, "%s", b.data);
            en_buf_free(&b);
            return r;
        }
        if (e->kind == IR_E_SELECT) {
            /* one operand after the other: each may hoist loads, and C leaves the order of a
             * call's arguments open (the generated text must not depend on the compiler) */
            const char *c = cpu_ex(em, e->args[0], -1), *x = whole(em, e->args[1]), *y = whole(em, e->args[2]);
            return cpu_S(em, "(%s ? %s : %s)", c, x, y);
        }
        if (e->kind == IR_E_BITCAST) return cpu_S(em, "%s[l]", cpu_materialize(em, e));
        cpu_fail(em, e->loc, "an aggregate value of expression kind %d", (int)e->kind);
        return "0";
    case IR_T_SIMD_MATRIX:
        cpu_fail(em, e->loc, "a simdgroup matrix value that is not a variable");
        return "0";
    default:
        if (e->kind == IR_E_BITCAST) return cpu_S(em, "%s[l]", cpu_materialize(em, e));
        return cpu_to_storage(em, t, cpu_ex(em, e, -1));
    }
}

EN_INTERNAL const char *cpu_binary_expr(emitter *em, ir_op op, const ir_type *t, const char *a,
                                    const char *b) {
    const char *sym = ir_op_name(op);
    if (op >= IR_OP_EQ && op <= IR_OP_GE) return cpu_S(em, "(%s %s %s)", a, sym, b);
    if (op == IR_OP_LOGAND || op == IR_OP_LOGOR) return cpu_S(em, "(%s %s %s)", a, sym, b);
    if (t->kind == IR_T_BOOL) return cpu_S(em, "(%s %s %s)", a, sym, b);
    if (t->kind == IR_T_PTR) return cpu_S(em, "((int64_t)(%s - %s))", a, b);
    if (ir_is_float(t)) {
        if (op == IR_OP_REM) return cpu_rounded(em, t, cpu_S(em, "fmodf(%s, %s)", a, b));
        return cpu_rounded(em, t, cpu_S(em, "(%s %s %s)", a, sym, b));
    }
    const char *T = cpu_scalar_ctype(t->kind), *U = cpu_wide_unsigned(t);
    int w = cpu_int_bits(t);
    switch (op) {
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: /* wraps, as on the GPU */
        return cpu_S(em, "((%s)((%s)%s %s (%s)%s))", T, U, a, sym, U, b);
    case IR_OP_DIV: return cpu_S(em, "enk_div_%s(%s, %s)", cpu_suffix_of(t), a, b);
    case IR_OP_REM: return cpu_S(em, "enk_rem_%s(%s, %s)", cpu_suffix_of(t), a, b);
    case IR_OP_SHL: return cpu_S(em, "((%s)((%s)%s << ((%s) & %d)))", T, U, a, b, w - 1);
    case IR_OP_SHR:
        if (ir_is_signed(t))
            return cpu_S(em, "((%s)((%s)%s >> ((%s) & %d)))", T, t->size == 8 ? "int64_t" : "int32_t", a, b, w - 1);
        return cpu_S(em, "((%s)((%s)%s >> ((%s) & %d)))", T, U, a, b, w - 1);
    default: return cpu_S(em, "((%s)(%s %s %s))", T, a, sym, b);
    }
}

static const char *convert_expr(emitter *em, const ir_type *to, const ir_type *from, const char *a) {
    if (to == from) return a;
    if (to->kind == IR_T_BOOL) return cpu_S(em, "(%s != 0)", a);
    if (ir_is_float(to)) {
        if (ir_is_float(from) && from->kind != IR_T_F32 && to->kind == IR_T_F32) return a;
        return cpu_rounded(em, to, cpu_S(em, "(float)(%s)", a));
    }
    if (ir_is_float(from)) return cpu_S(em, "enk_cvt_%s(%s)", cpu_suffix_of(to), a);
    return cpu_S(em, "((%s)(%s))", cpu_scalar_ctype(to->kind), a);
}

static const char *call_expr(emitter *em, const ir_expr *e, int comp);

EN_INTERNAL const char *cpu_ex(emitter *em, const ir_expr *e, int comp) {
    const ir_type *t = e->type;
    for (int i = 0; i < em->wide_index.count; i++) /* emit_wide.c: thread_loop */
        if (em->wide_index.items[i].expr == e) return em->wide_index.items[i].temp;
    switch (e->kind) {
    case IR_E_CONST: return const_literal(em, t, e->c);
    case IR_E_VAR:
    case IR_E_INDEX:
    case IR_E_FIELD:
    case IR_E_DEREF:
    case IR_E_SWIZZLE:
        if (e->kind == IR_E_SWIZZLE && !ir_is_place(e->args[0])) {
            const ir_expr *b = e->args[0];
            return cpu_ex(em, b, e->swizzle[comp < 0 ? 0 : comp]);
        }
        if (e->kind == IR_E_INDEX && e->args[0]->type->kind == IR_T_VEC && !ir_is_place(e->args[0])) {
            const char *tmp = cpu_materialize(em, e->args[0]);
            const char *index = cpu_ex(em, e->args[1], -1);
            if (em->checked && index_needs_test(em, e)) { /* a bad lane reads zero (thread_index_lanes) */
                emit_index_test(em, e, index, CPU_CHECK_LOAD, NULL);
                return cpu_from_storage(em, t, cpu_S(em, "((uint64_t)(int64_t)(%s) < %uu ? %s[l].v[%s] : 0)", index,
                                                     e->args[0]->type->count, tmp, index));
            }
            return cpu_from_storage(em, t, cpu_S(em, "%s[l].v[%s]", tmp, index));
        }
        return read_place(em, e, comp);
    case IR_E_ADDR: return cpu_S(em, "(&%s)", cpu_lvalue(em, e->args[0]));
    case IR_E_UNARY: {
        const ir_expr *a = e->args[0];
        const char *x = cpu_ex(em, a, comp_of(a, comp));
        const ir_type *st = ir_scalar_of(t);
        switch (e->op) {
        case IR_OP_NEG:
            if (ir_is_float(st)) return cpu_S(em, "(-%s)", x);
            return cpu_S(em, "((%s)(0u - (%s)%s))", cpu_scalar_ctype(st->kind), cpu_wide_unsigned(st), x);
        case IR_OP_NOT: return cpu_S(em, "(!%s)", x);
        case IR_OP_BITNOT:
            if (st->kind == IR_T_BOOL) return cpu_S(em, "(!%s)", x);
            return cpu_S(em, "((%s)~%s)", cpu_scalar_ctype(st->kind), x);
        default: break;
        }
        cpu_fail(em, e->loc, "unary operator %d", (int)e->op);
        return "0";
    }
    case IR_E_BINARY: {
        const ir_expr *a = e->args[0], *b = e->args[1];
        const ir_type *st = ir_scalar_of(a->type);
        if (em->checked && (e->op == IR_OP_DIV || e->op == IR_OP_REM) && ir_is_integer(st) &&
            !(b->kind == IR_E_CONST && b->c.u != 0)) { /* checked: report an active lane's zero divisor */
            const char *site = cpu_site_ref(em, e->loc, e->op == IR_OP_DIV ? CPU_CHECK_DIV : CPU_CHECK_REM, 0, -1, NULL,
                                          e->op == IR_OP_DIV ? "/" : "%");
            const char *x = cpu_ex(em, a, comp_of(a, comp)), *y = cpu_ex(em, b, comp_of(b, comp));
            return cpu_S(em, "enk_c%s_%s(%s, %s, ENK_ON(%s, l), _cg, %s, _sg, l)", e->op == IR_OP_DIV ? "div" : "rem",
                         cpu_suffix_of(st), x, y, em->mask, site);
        }
        /* operands in order (see IR_E_SELECT above) */
        const char *x = cpu_ex(em, a, comp_of(a, comp)), *y = cpu_ex(em, b, comp_of(b, comp));
        return cpu_binary_expr(em, e->op, ir_scalar_of(a->type), x, y);
    }
    case IR_E_SELECT: {
        const ir_expr *c = e->args[0];
        if (t->kind != IR_T_VEC && !ir_is_scalar(t) && t->kind != IR_T_PTR)
            return whole(em, e);
        const char *cv = cpu_ex(em, c, comp_of(c, comp)), *x = cpu_ex(em, e->args[1], comp),
                   *y = cpu_ex(em, e->args[2], comp); /* in order: each may hoist loads */
        return cpu_S(em, "(%s ? %s : %s)", cv, x, y);
    }
    case IR_E_CONVERT: {
        const ir_expr *a = e->args[0];
        return convert_expr(em, ir_scalar_of(t), ir_scalar_of(a->type), cpu_ex(em, a, comp_of(a, comp)));
    }
    case IR_E_BITCAST: {
        if (em->wide) { /* one thread's value: a union reinterprets it in place, emitting nothing */
            const char *u = cpu_S(em, "((union { %s s; %s t; }){.s = %s}).t", cpu_ctype(em, e->args[0]->type),
                                  cpu_ctype(em, t), whole(em, e->args[0]));
            if (t->kind == IR_T_VEC) return cpu_from_storage(em, t->elem, cpu_S(em, "%s.v[%d]", u, comp < 0 ? 0 : comp));
            return cpu_from_storage(em, t, u);
        }
        const char *tmp = cpu_materialize(em, e);
        if (t->kind == IR_T_VEC) return cpu_from_storage(em, t->elem, cpu_S(em, "%s[l].v[%d]", tmp, comp < 0 ? 0 : comp));
        return cpu_from_storage(em, t, cpu_S(em, "%s[l]", tmp));
    }
    case IR_E_PTRCAST: {
        const char *ct = cpu_ctype(em, t), *x = cpu_ex(em, e->args[0], -1);
        return cpu_S(em, "((%s)%s)", ct, x);
    }
    case IR_E_PTR_OFFSET: {
        const char *x = cpu_ex(em, e->args[0], -1), *y = cpu_ex(em, e->args[1], -1);
        return cpu_S(em, "(%s + %s)", x, y);
    }
    case IR_E_SPLAT: return cpu_ex(em, e->args[0], -1);
    case IR_E_VECTOR: return cpu_ex(em, e->args[comp < 0 ? 0 : comp], -1);
    case IR_E_CALL: return call_expr(em, e, comp);
    case IR_E_AGGREGATE: break;
    }
    cpu_fail(em, e->loc, "expression kind %d used as a scalar", (int)e->kind);
    return "0";
}

/* ---- pure built-in functions -------------------------------------------------------- */
static const char *float_fn1(ir_intrinsic i) {
    switch (i) {
    case IR_I_ABS: case IR_I_FABS: return "fabsf";
    case IR_I_FLOOR: return "floorf";
    case IR_I_CEIL: return "ceilf";
    case IR_I_ROUND: return "roundf";
    case IR_I_RINT: return "rintf";
    case IR_I_TRUNC: return "truncf";
    case IR_I_FRACT: return "enk_fract";
    case IR_I_EXP: return "expf";
    case IR_I_EXP2: return "exp2f";
    case IR_I_EXP10: return "enk_exp10";
    case IR_I_LOG: return "logf";
    case IR_I_LOG2: return "log2f";
    case IR_I_LOG10: return "log10f";
    case IR_I_SQRT: return "sqrtf";
    case IR_I_SIN: return "sinf";
    case IR_I_COS: return "cosf";
    case IR_I_TAN: return "tanf";
    case IR_I_ASIN: return "asinf";
    case IR_I_ACOS: return "acosf";
    case IR_I_ATAN: return "atanf";
    case IR_I_SINH: return "sinhf";
    case IR_I_COSH: return "coshf";
    case IR_I_TANH: return "tanhf";
    case IR_I_ASINH: return "asinhf";
    case IR_I_ACOSH: return "acoshf";
    case IR_I_ATANH: return "atanhf";
    case IR_I_SINPI: return "enk_sinpi";
    case IR_I_COSPI: return "enk_cospi";
    case IR_I_TANPI: return "enk_tanpi";
    case IR_I_SIGN: return "enk_sign";
    case IR_I_MODF_FRACTION: return "enk_modf_frac";
    case IR_I_FREXP_MANTISSA: return "enk_frexp_m";
    default: return NULL;
    }
}
static const char *float_fn2(ir_intrinsic i) {
    switch (i) {
    case IR_I_MIN: case IR_I_FMIN: return "enk_fminf";
    case IR_I_MAX: case IR_I_FMAX: return "enk_fmaxf";
    case IR_I_FMOD: return "fmodf";
    case IR_I_FDIM: return "fdimf";
    case IR_I_POW: case IR_I_POWR: return "powf";
    case IR_I_ATAN2: return "atan2f";
    case IR_I_COPYSIGN: return "copysignf";
    default: return NULL;
    }
}

static const char *call_expr(emitter *em, const ir_expr *e, int comp) {
    const ir_type *t = e->type;
    const ir_type *at = e->arg_count ? e->args[0]->type : t;
    const ir_type *as = ir_scalar_of(at);
    const char *a[4] = {"0", "0", "0", "0"};
    ir_intrinsic i = e->intrinsic;
    bool horizontal = i == IR_I_DOT || i == IR_I_LENGTH || i == IR_I_DISTANCE ||
                      i == IR_I_NORMALIZE || i == IR_I_CROSS || i == IR_I_ALL || i == IR_I_ANY;
    if (!horizontal)
        for (int k = 0; k < e->arg_count && k < 4; k++)
            a[k] = cpu_ex(em, e->args[k], comp_of(e->args[k], comp));
    const ir_type *rs = ir_scalar_of(t);
    if (horizontal) {
        int n = ir_lanes(at);
        en_buf b = {0};
        const char *r;
        switch (i) {
        case IR_I_ALL:
        case IR_I_ANY:
            en_buf_putc(&b, '(');
            for (int c = 0; c < n; c++)
                en_buf_printf(&b, "%s%s", c ? (i == IR_I_ALL ? " && " : " || ") : "",
                              cpu_ex(em, e->args[0], comp_of(e->args[0], c)));
            en_buf_putc(&b, ')');
            break;
        case IR_I_DOT:
        case IR_I_LENGTH:
        case IR_I_DISTANCE:
        case IR_I_NORMALIZE:
            en_buf_putc(&b, '(');
            for (int c = 0; c < n; c++) {
                const char *x = cpu_ex(em, e->args[0], comp_of(e->args[0], c));
                if (i == IR_I_DOT) {
                    en_buf_printf(&b, "%s%s * %s", c ? " + " : "", x, cpu_ex(em, e->args[1], comp_of(e->args[1], c)));
                } else if (i == IR_I_DISTANCE) {
                    const char *y = cpu_ex(em, e->args[1], comp_of(e->args[1], c));
                    en_buf_printf(&b, "%s(%s - %s) * (%s - %s)", c ? " + " : "", x, y, x, y);
                } else {
                    en_buf_printf(&b, "%s%s * %s", c ? " + " : "", x, x);
                }
            }
            en_buf_putc(&b, ')');
            break;
        case IR_I_CROSS: {
            int c1 = (comp + 1) % 3, c2 = (comp + 2) % 3;
            const ir_expr *x = e->args[0], *y = e->args[1];
            const char *x1 = cpu_ex(em, x, c1), *y2 = cpu_ex(em, y, c2), *x2 = cpu_ex(em, x, c2),
                       *y1 = cpu_ex(em, y, c1); /* in order: each may hoist loads */
            en_buf_printf(&b, "(%s * %s - %s * %s)", x1, y2, x2, y1);
            break;
        }
        default: break;
        }
        r = cpu_S(em, "%s", b.data ? b.data : "0");
        en_buf_free(&b);
        if (i == IR_I_LENGTH || i == IR_I_DISTANCE) r = cpu_S(em, "sqrtf%s", r);
        if (i == IR_I_NORMALIZE)
            r = cpu_S(em, "(%s / sqrtf%s)", cpu_ex(em, e->args[0], comp), r);
        if (i == IR_I_ALL || i == IR_I_ANY) return r;
        return cpu_rounded(em, rs, r);
    }
    if (ir_is_float(as) || (ir_is_float(rs) && i != IR_I_SELECT)) {
        const char *fn = float_fn1(i);
        if (i == IR_I_EXP && !e->precise) fn = "enk_fast_exp"; /* fast:: (the default): vectorises */
        const char *r = NULL;
        if (fn) r = cpu_S(em, "%s(%s)", fn, a[0]);
        else if ((fn = float_fn2(i))) r = cpu_S(em, "%s(%s, %s)", fn, a[0], a[1]);
        else switch (i) {
        case IR_I_CLAMP: r = cpu_S(em, "enk_clampf(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MIX: r = cpu_S(em, "(%s + (%s - %s) * %s)", a[0], a[1], a[0], a[2]); break;
        case IR_I_STEP: r = cpu_S(em, "(%s < %s ? 0.0f : 1.0f)", a[1], a[0]); break;
        case IR_I_SMOOTHSTEP: r = cpu_S(em, "enk_smoothstep(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_SATURATE: r = cpu_S(em, "enk_clampf(%s, 0.0f, 1.0f)", a[0]); break;
        case IR_I_RSQRT: r = cpu_S(em, "(1.0f / sqrtf(%s))", a[0]); break;
        case IR_I_FMA: r = cpu_S(em, "fmaf(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MAD: r = cpu_S(em, "(%s * %s + %s)", a[0], a[1], a[2]); break;
        case IR_I_LDEXP: r = cpu_S(em, "ldexpf(%s, (int)%s)", a[0], a[1]); break;
        case IR_I_FREXP_EXPONENT: return cpu_S(em, "((%s)enk_frexp_e(%s))", cpu_scalar_ctype(rs->kind), a[0]);
        case IR_I_ISNAN: return cpu_S(em, "(isnan(%s) != 0)", a[0]);
        case IR_I_ISINF: return cpu_S(em, "(isinf(%s) != 0)", a[0]);
        case IR_I_ISFINITE: return cpu_S(em, "(isfinite(%s) != 0)", a[0]);
        case IR_I_SIGNBIT: return cpu_S(em, "(signbit(%s) != 0)", a[0]);
        case IR_I_MAX3: r = cpu_S(em, "enk_max3f(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MIN3: r = cpu_S(em, "enk_min3f(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MEDIAN3: r = cpu_S(em, "enk_median3f(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_SELECT: break;
        default: break;
        }
        if (r) return cpu_rounded(em, rs, r);
    }
    if (i == IR_I_SELECT) return cpu_S(em, "(%s ? %s : %s)", a[2], a[1], a[0]);
    if (ir_is_integer(as)) {
        const char *s = cpu_suffix_of(as);
        switch (i) {
        case IR_I_ABS: return cpu_S(em, "((%s)enk_abs_%s(%s))", cpu_scalar_ctype(rs->kind), s, a[0]);
        case IR_I_MIN: return cpu_S(em, "enk_min_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MAX: return cpu_S(em, "enk_max_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_CLAMP: return cpu_S(em, "enk_clamp_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_POPCOUNT: return cpu_S(em, "enk_popcount_%s(%s)", s, a[0]);
        case IR_I_CLZ: return cpu_S(em, "enk_clz_%s(%s)", s, a[0]);
        case IR_I_CTZ: return cpu_S(em, "enk_ctz_%s(%s)", s, a[0]);
        case IR_I_MULHI: return cpu_S(em, "enk_mulhi_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MUL24: return cpu_S(em, "enk_mul24_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MAD24:
            return cpu_binary_expr(em, IR_OP_ADD, as, cpu_S(em, "enk_mul24_%s(%s, %s)", s, a[0], a[1]), a[2]);
        case IR_I_ROTATE: return cpu_S(em, "enk_rotate_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_ADDSAT: return cpu_S(em, "enk_addsat_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_SUBSAT: return cpu_S(em, "enk_subsat_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_ABSDIFF: return cpu_S(em, "((%s)enk_absdiff_%s(%s, %s))", cpu_scalar_ctype(rs->kind), s, a[0], a[1]);
        case IR_I_HADD: return cpu_S(em, "enk_hadd_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_RHADD: return cpu_S(em, "enk_rhadd_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MAX3: return cpu_S(em, "enk_max3_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_MIN3: return cpu_S(em, "enk_min3_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_MEDIAN3: return cpu_S(em, "enk_median3_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_EXTRACT_BITS:
            return cpu_S(em, "enk_extract_bits_%s(%s, (uint32_t)%s, (uint32_t)%s)", s, a[0], a[1], a[2]);
        case IR_I_INSERT_BITS:
            return cpu_S(em, "enk_insert_bits_%s(%s, %s, (uint32_t)%s, (uint32_t)%s)", s, a[0], a[1], a[2], a[3]);
        case IR_I_REVERSE_BITS: return cpu_S(em, "enk_reverse_bits_%s(%s)", s, a[0]);
        default: break;
        }
    }
    cpu_fail(em, e->loc, "built-in %s on %s is not supported by the cpu backend", ir_intrinsic_name(i),
         ir_type_name(at, &em->arena));
    return "0";
}
