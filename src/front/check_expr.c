/* check_expr.c — expressions: AST to side-effect-free IR expressions plus the statements
 * their side effects need, in C++ evaluation order.
 *
 * Needs: the scopes of check.c and the types of check_decl.c. Guarantees (ir.h):
 *   - assignments, ++/--, calls of user functions and non-pure intrinsics become
 *     statements appended to the current block before the expression that reads their
 *     result;
 *   - `&&`, `||` and `?:` whose later operands emit statements or could fault (loads,
 *     integer division) become if-statements writing a temporary;
 *   - every conversion is explicit; references are dereferenced at each use;
 *   - a NULL result means an error was reported (or the parser already reported one);
 *     callers stay silent about it. */
#include "check.h"

#include <math.h>
#include <string.h>

static ir_expr *void_expr(checker *ck, en_loc loc) {
    return ir_expr_new(ck->m, IR_E_CONST, ck_t(ck, IR_T_VOID), loc, 0);
}

static bool is_void(const ir_expr *e) { return e && e->type && e->type->kind == IR_T_VOID; }

/* ---- literals ------------------------------------------------------------------------ */
static ir_expr *int_literal(checker *ck, const ast_expr *e) {
    uint64_t v = e->ival;
    bool decimal = !(e->text && e->text[0] == '0' && e->text[1] != 0);
    bool u = e->suffix & EN_LIT_U, l = e->suffix & EN_LIT_L;
    ir_type_kind k;
    if (u && l) k = IR_T_U64;
    else if (u) k = v <= UINT32_MAX ? IR_T_U32 : IR_T_U64;
    else if (l) k = v <= INT64_MAX ? IR_T_I64 : IR_T_U64;
    else if (v <= INT32_MAX) k = IR_T_I32;
    else if (!decimal && v <= UINT32_MAX) k = IR_T_U32;
    else if (v <= INT64_MAX) k = IR_T_I64;
    else k = IR_T_U64;
    return ir_const_uint(ck->m, ck_t(ck, k), v, e->loc);
}

static ir_expr *float_literal(checker *ck, const ast_expr *e) {
    ir_type_kind k = IR_T_F32;
    if (e->suffix & EN_LIT_H) k = IR_T_F16;
    else if (e->suffix & EN_LIT_BF) k = IR_T_BF16;
    double v = ck_round_float(k, e->fval);
    return ir_const_float(ck->m, ck_t(ck, k), v, e->loc);
}

/* ---- names ----------------------------------------------------------------------------- */
static const char *name_text(checker *ck, const ast_name *n) {
    const char *s = ast_name_str(ck->a, n);
    while (s && strncmp(s, "metal::", 7) == 0) s += 7;
    return s ? s : "?";
}

/* mem_flags, memory_order, thread_scope and the preprocessor's INFINITY/NAN: constants of
 * the language */
static ir_expr *language_constant(checker *ck, const char *s, en_loc loc) {
    static const struct { const char *name; int value; } flags[] = {
        {"mem_flags::mem_none", IR_MEM_NONE},       {"mem_none", IR_MEM_NONE},
        {"mem_flags::mem_device", IR_MEM_DEVICE},   {"mem_device", IR_MEM_DEVICE},
        {"mem_flags::mem_threadgroup", IR_MEM_THREADGROUP},
        {"mem_threadgroup", IR_MEM_THREADGROUP},
        {"mem_flags::mem_texture", IR_MEM_TEXTURE}, {"mem_texture", IR_MEM_TEXTURE},
        {"mem_flags::mem_threadgroup_imageblock", IR_MEM_TEXTURE},
        {"mem_flags::mem_object_data", IR_MEM_NONE},
    };
    for (size_t i = 0; i < EN_COUNT(flags); i++)
        if (en_streq(s, flags[i].name)) return ir_const_uint(ck->m, ck_t(ck, IR_T_U32), (uint64_t)flags[i].value, loc);
    static const char *orders[] = {"memory_order_relaxed", "memory_order_consume",
                                   "memory_order_acquire", "memory_order_release",
                                   "memory_order_acq_rel", "memory_order_seq_cst"};
    for (size_t i = 0; i < EN_COUNT(orders); i++) {
        if (en_streq(s, orders[i]) ||
            (strncmp(s, "memory_order::", 14) == 0 && en_streq(s + 14, orders[i])))
            return ir_const_int(ck->m, ck_t(ck, IR_T_I32), (int64_t)i, loc);
    }
    /* thread_scope (Metal spec, "Fence Functions"), numbered as <metal_atomic>'s
     * __METAL_MEMORY_SCOPE_*__ macros (metal_headers.c); thread_scope_system is not declared
     * by Apple's header (kernels define it from __METAL_MEMORY_SCOPE_SYSTEM__), so not here */
    static const struct { const char *name; int value; } scopes[] = {
        {"thread_scope_thread", IR_SCOPE_THREAD},       {"thread_scope_simdgroup", IR_SCOPE_SIMDGROUP},
        {"thread_scope_threadgroup", IR_SCOPE_THREADGROUP}, {"thread_scope_device", IR_SCOPE_DEVICE},
    };
    for (size_t i = 0; i < EN_COUNT(scopes); i++)
        if (en_streq(s, scopes[i].name) ||
            (strncmp(s, "thread_scope::", 14) == 0 && en_streq(s + 14, scopes[i].name)))
            return ir_const_int(ck->m, ck_t(ck, IR_T_I32), scopes[i].value, loc);
    if (en_streq(s, "__enigma_infinity")) return ir_const_float(ck->m, ck_t(ck, IR_T_F32), INFINITY, loc);
    if (en_streq(s, "__enigma_nan")) return ir_const_float(ck->m, ck_t(ck, IR_T_F32), NAN, loc);
    return NULL;
}

static ir_expr *var_use(checker *ck, ck_sym *s, en_loc loc) {
    ir_expr *v = ir_var_ref(ck->m, s->var, loc);
    return s->is_ref ? ir_deref(ck->m, v, loc) : v;
}

static ir_expr *copy_const(checker *ck, ir_expr *c, en_loc loc) {
    ir_expr *r = ir_expr_new(ck->m, c->kind, c->type, loc, c->arg_count);
    r->c = c->c;
    for (int i = 0; i < c->arg_count; i++) r->args[i] = c->args[i];
    return r;
}

/* numeric_limits<T>::max() and friends are calls; this answers the name part */
static ir_expr *name_expr(checker *ck, const ast_expr *e) {
    if (e->qualifier) { /* decltype(x)::N: a static member of x's type */
        ir_type *t = ck_type(ck, e->qualifier);
        if (!t) return NULL;
        if (t->kind != IR_T_STRUCT) {
            en_error(ck->diags, e->loc, "'%s' has no members: it is not a struct", ck_type_name(ck, t));
            return NULL;
        }
        ck_sym *m = ck_lookup_str(ck, en_fmt(ck->a, "%s::%s", t->name, ast_name_str(ck->a, &e->name)));
        if (!m || m->kind != SYM_CONST || !m->value) {
            en_error(ck->diags, e->loc, "'%s' has no static constant '%s'", ck_type_name(ck, t),
                     ast_name_str(ck->a, &e->name));
            return NULL;
        }
        return copy_const(ck, m->value, e->loc);
    }
    const char *s = name_text(ck, &e->name);
    if (en_streq(s, "nullptr")) return ck_null_pointer(ck, NULL, e->loc);
    bool is_trait;
    ir_expr *trait = ck_type_trait_value(ck, &e->name, e->loc, &is_trait);
    if (is_trait) return trait;
    ck_sym *sym = ck_lookup(ck, &e->name);
    if (sym) {
        switch (sym->kind) {
        case SYM_VAR:
            if (!sym->var) return NULL;
            return var_use(ck, sym, e->loc);
        case SYM_CONST:
            if (sym->other_template) return ck_var_template_value(ck, sym, &e->name.parts[e->name.count - 1], e->loc);
            if (!sym->value && sym->is_function_constant) return ck_function_constant_missing(ck, sym, e->loc);
            return sym->value ? copy_const(ck, sym->value, e->loc) : NULL;
        case SYM_TYPE:
            if (sym->type) en_error(ck->diags, e->loc, "'%s' is a type, not a value", s);
            return NULL;
        case SYM_FUNC:
            en_error(ck->diags, e->loc,
                     "function '%s' used as a value: enigma resolves function pointers while compiling, so a "
                     "function can only be called or be the argument of a template parameter of function-pointer type",
                     s);
            return NULL;
        case SYM_NAMESPACE:
            en_error(ck->diags, e->loc, "'%s' is a namespace, not a value", s);
            return NULL;
        case SYM_FIELD: {
            /* a field of *this inside a member function */
            if (!ck->this_var) return NULL;
            ir_expr *self = ir_deref(ck->m, ir_var_ref(ck->m, ck->this_var, e->loc), e->loc);
            ir_type *st = self->type;
            if (!st || st->kind != IR_T_STRUCT || sym->field >= st->field_count) return NULL;
            ir_expr *f = ir_expr_new(ck->m, IR_E_FIELD, st->fields[sym->field].type, e->loc, 1);
            f->args[0] = self;
            f->field = sym->field;
            return f;
        }
        }
    }
    ir_expr *c = language_constant(ck, s, e->loc);
    if (c) return c;
    const char *last = ast_name_last(&e->name);
    if (ck_is_builtin(last)) {
        en_error(ck->diags, e->loc, "built-in function '%s' must be called", last);
        return NULL;
    }
    en_error(ck->diags, e->loc, "use of undeclared identifier '%s'", s);
    return NULL;
}

/* ---- helpers --------------------------------------------------------------------------- */
/* could evaluating e fault or touch memory (so it must not run under a false condition)? */
static bool may_fault(const ir_expr *e) {
    if (!e) return false;
    switch (e->kind) {
    case IR_E_DEREF: case IR_E_INDEX: return true;
    case IR_E_VAR: return e->var && e->var->storage != IR_VAR_LOCAL;
    case IR_E_BINARY:
        if ((e->op == IR_OP_DIV || e->op == IR_OP_REM) && !ir_is_float(ir_scalar_of(e->type)))
            return true;
        break;
    default: break;
    }
    for (int i = 0; i < e->arg_count; i++)
        if (may_fault(e->args[i])) return true;
    return false;
}

/* a value that is cheap and safe to repeat: a variable, a constant */
static bool is_simple(const ir_expr *e) {
    return e && (e->kind == IR_E_CONST || (e->kind == IR_E_VAR && e->var->storage == IR_VAR_LOCAL));
}

/* e in a temporary, when it is worth not repeating */
static ir_expr *stash(checker *ck, ir_expr *e, en_loc loc) {
    if (!e || is_simple(e) || !ck->fn) return e;
    ir_var *t = ck_temp_init(ck, e->type, e, loc);
    return ir_var_ref(ck->m, t, loc);
}

/* may this place be written? reports why not */
static bool writable(checker *ck, ir_expr *place, en_loc loc) {
    if (!place) return false;
    if (!ir_is_place(place)) {
        en_error(ck->diags, loc, "expression is not assignable");
        return false;
    }
    for (ir_expr *p = place; p; p = p->arg_count ? p->args[0] : NULL) {
        if (p->kind == IR_E_SWIZZLE) {
            for (int i = 0; i < p->swizzle_len; i++)
                for (int j = i + 1; j < p->swizzle_len; j++)
                    if (p->swizzle[i] == p->swizzle[j]) {
                        en_error(ck->diags, loc, "a swizzle with repeated components cannot be assigned");
                        return false;
                    }
        }
        if (p->kind == IR_E_VAR) {
            if (p->var->storage == IR_VAR_CONSTANT || p->var->declared_const) {
                en_error(ck->diags, loc, "cannot assign to '%s': it is const", p->var->name);
                return false;
            }
            break;
        }
        if (p->kind == IR_E_DEREF || (p->kind == IR_E_INDEX && p->args[0]->type->kind == IR_T_PTR)) {
            const ir_type *pt = p->args[0]->type;
            if (pt->is_const || pt->space == IR_SPACE_CONSTANT) {
                en_error(ck->diags, loc, "cannot assign through '%s': it points to read-only memory",
                         ck_type_name(ck, pt));
                return false;
            }
            break;
        }
    }
    if (place->type->kind == IR_T_ATOMIC) {
        en_error(ck->diags, loc, "atomic objects are written with atomic_store_explicit, not '='");
        return false;
    }
    return true;
}

static void emit_assign(checker *ck, ir_expr *place, ir_expr *value, en_loc loc) {
    ck_emit(ck, ir_assign(ck->m, place, value, loc));
    ck_mark_assigned(place);
}

ir_expr *ck_addr_of(checker *ck, ir_expr *place, en_loc loc) {
    if (place->kind == IR_E_DEREF) return place->args[0];
    bool is_const;
    ir_space sp = ck_place_space(place, &is_const);
    ir_expr *a = ir_expr_new(ck->m, IR_E_ADDR, ir_type_ptr(ck->m, place->type, sp, is_const), loc, 1);
    a->args[0] = place;
    ck_mark_address_taken(place);
    return a;
}

static ir_expr *zero_of(checker *ck, ir_type *t, en_loc loc) {
    if (ir_is_scalar(t)) return ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, loc), t, loc);
    if (t->kind == IR_T_VEC) return ck_convert(ck, zero_of(ck, t->elem, loc), t, loc);
    if (t->kind == IR_T_ARRAY || t->kind == IR_T_STRUCT) {
        int n = t->kind == IR_T_ARRAY ? (int)t->count : t->field_count;
        if (t->size > (1u << 20)) {
            en_error(ck->diags, loc, "an initializer of %u bytes is too large for enigma (at most %u)",
                     t->size, 1u << 20);
            return NULL;
        }
        ir_expr *a = ir_expr_new(ck->m, IR_E_AGGREGATE, t, loc, n);
        for (int i = 0; i < n; i++) {
            a->args[i] = zero_of(ck, t->kind == IR_T_ARRAY ? t->elem : t->fields[i].type, loc);
            if (!a->args[i]) return NULL;
        }
        return a;
    }
    if (t->kind == IR_T_PTR) {
        en_error(ck->diags, loc, "null pointers are not supported by enigma");
        return NULL;
    }
    en_error(ck->diags, loc, "'%s' cannot be zero-initialized", ck_type_name(ck, t));
    return NULL;
}

/* ---- vector construction --------------------------------------------------------------- */
static ir_expr *lane_of(checker *ck, ir_expr *v, int lane, en_loc loc) {
    ir_expr *s = ir_expr_new(ck->m, IR_E_SWIZZLE, v->type->elem, loc, 1);
    s->args[0] = v;
    s->swizzle[0] = (uint8_t)lane;
    s->swizzle_len = 1;
    return s;
}

/* float4(a.xy, b, c), float4(x), float4(int4), float4() */
static ir_expr *construct_vector(checker *ck, ir_type *t, ir_expr **args, en_loc *locs, int n, en_loc loc) {
    if (n == 0) return zero_of(ck, t, loc);
    if (n == 1 && ir_is_scalar(args[0]->type) && !ck_is_vote(args[0]->type))
        return ck_convert(ck, args[0], t, loc);
    if (n == 1 && args[0]->type->kind == IR_T_VEC) {
        if (args[0]->type->count != t->count) {
            en_error(ck->diags, loc, "cannot convert '%s' to '%s': vectors of different lengths",
                     ck_type_name(ck, args[0]->type), ck_type_name(ck, t));
            return NULL;
        }
        return ck_convert(ck, args[0], t, loc);
    }
    ir_expr *lanes[4];
    int count = 0;
    for (int i = 0; i < n; i++) {
        ir_expr *a = args[i];
        if (a->type->kind == IR_T_VEC) {
            a = stash(ck, a, locs[i]);
            for (int l = 0; l < (int)a->type->count; l++) {
                if (count < 4) lanes[count] = ck_convert(ck, lane_of(ck, a, l, locs[i]), t->elem, locs[i]);
                count++;
            }
        } else if (ir_is_scalar(a->type) && !ck_is_vote(a->type)) {
            if (count < 4) lanes[count] = ck_convert(ck, a, t->elem, locs[i]);
            count++;
        } else {
            en_error(ck->diags, locs[i], "cannot use '%s' to initialize a lane of '%s'",
                     ck_type_name(ck, a->type), ck_type_name(ck, t));
            return NULL;
        }
    }
    if (count != (int)t->count) {
        en_error(ck->diags, loc, "too %s elements in vector initialization (expected %u elements, have %d)",
                 count < (int)t->count ? "few" : "many", t->count, count);
        return NULL;
    }
    ir_expr *v = ir_expr_new(ck->m, IR_E_VECTOR, t, loc, count);
    for (int i = 0; i < count; i++) v->args[i] = lanes[i];
    return v;
}

static ir_expr *construct(checker *ck, ir_type *t, ir_expr **args, en_loc *locs, int n, en_loc loc) {
    if (!t) return NULL;
    if (t->kind == IR_T_STRUCT && ck_has_constructor(ck, t) && !(n == 1 && args[0]->type == t))
        return ck_construct(ck, t, args, locs, n, loc);
    if (t->kind == IR_T_VOID) return void_expr(ck, loc);
    if (ck_is_vote(t)) {
        if (n == 1) return ck_explicit(ck, args[0], t, loc);
    } else if (ir_is_scalar(t)) {
        if (n == 0) return zero_of(ck, t, loc);
        if (n == 1) return ck_explicit(ck, args[0], t, loc);
        en_error(ck->diags, loc, "'%s' takes one value to convert, got %d", ck_type_name(ck, t), n);
        return NULL;
    }
    if (t->kind == IR_T_VEC) return construct_vector(ck, t, args, locs, n, loc);
    if (t->kind == IR_T_STRUCT || t->kind == IR_T_ARRAY) {
        if (n == 0) return zero_of(ck, t, loc);
        if (n == 1 && args[0]->type == t) return args[0];
        int want = t->kind == IR_T_ARRAY ? (int)t->count : t->field_count;
        if (n > want) {
            en_error(ck->diags, loc, "too many initializers for '%s' (expected %d, have %d)",
                     ck_type_name(ck, t), want, n);
            return NULL;
        }
        ir_expr *a = ir_expr_new(ck->m, IR_E_AGGREGATE, t, loc, want);
        for (int i = 0; i < want; i++) {
            ir_type *ft = t->kind == IR_T_ARRAY ? t->elem : t->fields[i].type;
            a->args[i] = i < n ? ck_implicit(ck, args[i], ft, locs[i]) : zero_of(ck, ft, loc);
            if (!a->args[i]) return NULL;
        }
        return a;
    }
    if (t->kind == IR_T_SIMD_MATRIX && n == 1 && ir_is_scalar(args[0]->type)) {
        ir_expr *v = ck_convert(ck, args[0], t->elem, loc);
        ir_var *r = ck_temp(ck, t, loc);
        ck_emit(ck, ir_intrinsic_stmt(ck->m, IR_I_MATRIX_FILL, r, &v, 1, loc));
        return ir_var_ref(ck->m, r, loc);
    }
    if (n == 1 && args[0]->type == t) return args[0];
    en_error(ck->diags, loc, "cannot construct '%s' from %d argument%s", ck_type_name(ck, t), n,
             n == 1 ? "" : "s");
    return NULL;
}

/* ---- calls ----------------------------------------------------------------------------- */
typedef struct arglist {
    ir_expr **items;
    en_loc *locs;
    int n;
    bool ok;
} arglist;

/* the type a braced argument `f({a, b, c})` of `count` elements takes at position `at` of a
 * call to overload set fs: the parameter type of the candidates that can take such a list
 * there (a vector, array or struct; a scalar only from one element), when that type does not
 * depend on a template parameter (MLX: elem_to_loc<IdxT>({N * x, y, z}, ...)'s uint3 beside
 * an IdxT overload); NULL when they disagree or none says */
static ir_type *braced_argument_type(checker *ck, const ck_sym *fs, int at, int n, int count) {
    ir_type *found = NULL;
    for (const ck_func *cf = fs ? fs->funcs : NULL; cf; cf = cf->next) {
        const ast_decl *d = cf->d;
        if (!d || cf->is_kernel || d->params.count < n || at >= d->params.count) continue;
        en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
        en_diags *loud = ck->diags;
        ck->diags = &quiet;
        bool is_ref = false;
        ir_type *t = ck_decl_type(ck, d->params.items[at].type, &is_ref, true);
        ck->diags = loud;
        if (!t || quiet.errors) continue; /* depends on a template parameter */
        if (is_ref && t->kind == IR_T_PTR) t = t->elem;
        if (ir_is_scalar(t) && count > 1) continue;
        if (t->kind == IR_T_VEC && (int)t->count < count) continue;
        if (found && found != t) return NULL;
        found = t;
    }
    return found;
}

static arglist check_args_for(checker *ck, const ast_exprs *in, const ck_sym *fs) {
    arglist r = {0};
    r.ok = true;
    r.n = in->count;
    r.items = en_alloc(ck->a, sizeof(ir_expr *) * (size_t)(in->count + 1));
    r.locs = en_alloc(ck->a, sizeof(en_loc) * (size_t)(in->count + 1));
    for (int i = 0; i < in->count; i++) {
        const ast_expr *a = in->items[i];
        r.locs[i] = a ? a->loc : (en_loc){-1, 0, 0};
        if (a && a->kind == AST_EXPR_INIT_LIST) {
            ir_type *t = fs ? braced_argument_type(ck, fs, i, in->count, a->args.count) : NULL;
            if (t) {
                r.items[i] = ck_initializer(ck, t, a, a->loc);
                if (!r.items[i]) r.ok = false;
                continue;
            }
            en_error(ck->diags, a->loc, "an initializer list cannot be a function argument here; name its type");
            r.ok = false;
            continue;
        }
        r.items[i] = ck_expr(ck, a);
        if (!r.items[i]) r.ok = false;
        else if (is_void(r.items[i])) {
            en_error(ck->diags, r.locs[i], "argument %d has no value (it is void)", i + 1);
            r.ok = false;
        }
    }
    return r;
}

static arglist check_args(checker *ck, const ast_exprs *in) { return check_args_for(ck, in, NULL); }

/* template arguments of a name's last part, as the built-ins take them */
static int builtin_targs(checker *ck, const ast_name *n, ck_targ *out, int max, bool *ok) {
    *ok = true;
    if (!n || n->count < 1) return 0;
    const ast_name_part *p = &n->parts[n->count - 1];
    if (!p->has_targs) return 0;
    int count = p->targs.count < max ? p->targs.count : max;
    for (int i = 0; i < count; i++) {
        const ast_targ *ta = &p->targs.items[i];
        out[i].type = NULL;
        out[i].value = 0;
        if (ta->type) {
            out[i].type = ck_type(ck, ta->type);
            if (!out[i].type) *ok = false;
        } else if (ta->expr && ta->expr->kind == AST_EXPR_NAME) {
            ck_sym *s = ck_lookup(ck, &ta->expr->name);
            ir_type *t = s && s->kind == SYM_TYPE ? s->type : NULL;
            if (!t && !s) t = ck_named_builtin_type(ck->m, ast_name_last(&ta->expr->name));
            if (s && s->kind == SYM_TYPE && !t) *ok = false; /* reported where it was declared */
            else if (t) out[i].type = t;
            else if (!ck_const_expr(ck, ta->expr, &out[i].value, "a template argument")) *ok = false;
        } else if (!ck_const_expr(ck, ta->expr, &out[i].value, "a template argument")) {
            *ok = false;
        }
    }
    return count;
}

/* vote.all(), vote.any() */
static ir_expr *method_call(checker *ck, const ast_expr *e) {
    const ast_expr *m = e->callee;
    ir_expr *obj = ck_expr(ck, m->operand);
    if (!obj) return NULL;
    if (m->arrow && obj->type->kind == IR_T_PTR) obj = ir_deref(ck->m, obj, m->loc);
    const char *name = m->member ? m->member : "?";
    if (ck_is_vote(obj->type) && e->args.count == 0 &&
        (en_streq(name, "any") || en_streq(name, "all"))) {
        ir_type *u64 = ck_t(ck, IR_T_U64);
        ir_expr *bits = ir_convert(ck->m, u64, obj, e->loc);
        if (en_streq(name, "any"))
            return ir_binary(ck->m, IR_OP_NE, ck_t(ck, IR_T_BOOL), bits, ir_const_uint(ck->m, u64, 0, e->loc), e->loc);
        /* all active lanes voted: the vote equals the active mask */
        bits = stash(ck, bits, e->loc);
        ir_var *mask = ck_temp(ck, u64, e->loc);
        ck_emit(ck, ir_intrinsic_stmt(ck->m, IR_I_SIMD_ACTIVE_THREADS_MASK, mask, NULL, 0, e->loc));
        return ir_binary(ck->m, IR_OP_EQ, ck_t(ck, IR_T_BOOL), bits, ir_var_ref(ck->m, mask, e->loc), e->loc);
    }
    if (obj->type->kind == IR_T_SIMD_MATRIX && en_streq(name, "thread_elements")) {
        /* this thread's two elements: a `thread vec<T, 2> &` over the matrix's own storage,
         * which every backend keeps in Apple's lane layout (see the backends' preludes) */
        if (e->args.count != 0) {
            en_error(ck->diags, m->loc, "thread_elements() takes no arguments");
            return NULL;
        }
        if (!ir_is_place(obj)) obj = ir_var_ref(ck->m, ck_temp_init(ck, obj->type, obj, e->loc), e->loc);
        bool is_const;
        ir_space sp = ck_place_space(obj, &is_const);
        ir_type *pair = ir_type_vec(ck->m, obj->type->elem, 2, false);
        ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, ir_type_ptr(ck->m, pair, sp, is_const), e->loc, 1);
        p->args[0] = ck_addr_of(ck, obj, e->loc);
        return ir_deref(ck->m, p, e->loc);
    }
    if (obj->type->kind == IR_T_STRUCT) {
        if (ck_only_empty_variadic_methods(ck, obj->type, name)) {
            /* MLX's logger.log_debug("fmt", x, y) before Metal 3.2: a variadic template with
             * an empty body; the call does nothing but evaluate its arguments (the format
             * string, a literal, has nothing to evaluate) */
            for (int i = 0; i < e->args.count; i++)
                if (e->args.items[i] && e->args.items[i]->kind != AST_EXPR_STRING) ck_expr(ck, e->args.items[i]);
            return void_expr(ck, e->loc);
        }
        arglist a = check_args(ck, &e->args);
        if (!a.ok) return NULL;
        return ck_call_method_explicit(ck, obj, name, m->member_targs, a.items, a.locs, a.n, m->loc);
    }
        en_error(ck->diags, m->loc, "no member function named '%s' in '%s'", name,
                 ck_type_name(ck, obj->type));
    return NULL;
}

static ir_expr *numeric_limits(checker *ck, const ast_expr *callee, en_loc loc) {
    const ast_name *n = &callee->name;
    const ast_name_part *lim = NULL;
    for (int i = 0; i < n->count - 1; i++)
        if (n->parts[i].ident && en_streq(n->parts[i].ident, "numeric_limits")) lim = &n->parts[i];
    if (!lim) return NULL;
    if (lim->targs.count != 1 || !lim->targs.items[0].type) {
        en_error(ck->diags, loc, "numeric_limits needs one type argument");
        return NULL;
    }
    ir_type *t = ck_type(ck, lim->targs.items[0].type);
    if (!t) return NULL;
    if (!ir_is_scalar(t)) {
        en_error(ck->diags, loc, "numeric_limits<%s> is not defined", ck_type_name(ck, t));
        return NULL;
    }
    const char *what = ast_name_last(n);
    if (!what) what = "";
    ir_module *m = ck->m;
    if (ir_is_float(t)) {
        double mx = t->kind == IR_T_F32 ? 3.4028234663852886e38 : t->kind == IR_T_F16 ? 65504.0 : 3.3895313892515355e38;
        double mn = t->kind == IR_T_F32 ? 1.1754943508222875e-38 : t->kind == IR_T_F16 ? 6.103515625e-05 : 1.1754943508222875e-38;
        double eps = t->kind == IR_T_F32 ? 1.1920928955078125e-07 : t->kind == IR_T_F16 ? 0.0009765625 : 0.0078125;
        double v;
        if (en_streq(what, "max")) v = mx;
        else if (en_streq(what, "lowest")) v = -mx;
        else if (en_streq(what, "min")) v = mn;
        else if (en_streq(what, "epsilon")) v = eps;
        else if (en_streq(what, "infinity")) v = INFINITY;
        else if (en_streq(what, "quiet_NaN")) v = NAN;
        else goto unknown;
        return ir_const_float(m, t, v, loc);
    }
    int bits = (int)t->size * 8;
    if (t->kind == IR_T_BOOL) bits = 1;
    if (en_streq(what, "max")) {
        uint64_t v = ir_is_signed(t) ? (((uint64_t)1 << (bits - 1)) - 1)
                     : bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
        return ir_const_uint(m, t, v, loc);
    }
    if (en_streq(what, "min") || en_streq(what, "lowest")) {
        int64_t v = ir_is_signed(t) ? (bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1))) : 0;
        return ir_const_int(m, t, v, loc);
    }
unknown:
    en_error(ck->diags, loc, "numeric_limits has no member '%s' in enigma", what);
    return NULL;
}

/* does built-in `name` take these arguments with no conversion of theirs? Tried quietly, in a
 * block of its own that is then dropped */
static bool builtin_takes_exactly(checker *ck, const char *name, bool precise, const arglist *a, en_loc loc) {
    if (!ck->fn) return false;
    en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
    en_diags *loud = ck->diags;
    ir_stmt *outer = ck->block;
    ck->diags = &quiet;
    ck->block = ir_block(ck->m, loc);
    ir_expr *r = ck_builtin_call(ck, name, precise, a->items, a->locs, a->n, NULL, 0, loc);
    ck->diags = loud;
    ck->block = outer;
    if (!r || quiet.errors) return false;
    /* exact: the built-in's operands are the arguments themselves, not conversions of them */
    for (int i = 0; i < r->arg_count; i++)
        if (r->args[i] && r->args[i]->kind == IR_E_CONVERT) return false;
    return true;
}

/* __metal_simd_xor(float x): Apple's intrinsic takes any type and works on its bits (MLX
 * declares simd_xor for bfloat through it): the integer built-in on the bits, cast back */
static ir_expr *bitwise_on_bits(checker *ck, const char *name, ir_expr *x, en_loc xloc, en_loc loc) {
    ir_type *t = x->type;
    ir_type *bits = ck_t(ck, ir_scalar_of(t)->size == 4 ? IR_T_U32 : IR_T_U16);
    if (t->kind == IR_T_VEC) bits = ir_type_vec(ck->m, bits, t->count, false);
    ir_expr *cast = ir_expr_new(ck->m, IR_E_BITCAST, bits, xloc, 1);
    cast->args[0] = x;
    ir_expr *args[1] = {cast};
    en_loc locs[1] = {xloc};
    ir_expr *r = ck_builtin_call(ck, name, false, args, locs, 1, NULL, 0, loc);
    if (!r) return NULL;
    ir_expr *back = ir_expr_new(ck->m, IR_E_BITCAST, t, loc, 1);
    back->args[0] = r;
    return back;
}

/* f(args) where f is an object: its operator() (MLX's `Op()(a, b)`) */
static ir_expr *functor_call(checker *ck, const ast_expr *e, ir_expr *f) {
    if (!f) return NULL;
    if (f->type->kind != IR_T_STRUCT) {
        en_error(ck->diags, e->callee->loc, "'%s' cannot be called: only functions and objects with an operator() "
                 "can (enigma has no function-pointer values)", ck_type_name(ck, f->type));
        return NULL;
    }
    arglist a = check_args(ck, &e->args);
    if (!a.ok) return NULL;
    return ck_call_method(ck, f, "operator()", a.items, a.locs, a.n, e->callee->loc);
}

static ir_expr *call_expr(checker *ck, const ast_expr *e) {
    const ast_expr *callee = e->callee;
    if (!callee || callee->kind == AST_EXPR_ERROR) return NULL;
    if (callee->kind == AST_EXPR_MEMBER) return method_call(ck, e);
    if (callee->kind != AST_EXPR_NAME) return functor_call(ck, e, ck_expr(ck, callee));
    const ast_name *n = &callee->name;
    if (n->count < 1 || !n->parts) return NULL;
    /* metal::, precise::, fast:: prefixes select the built-in's variant */
    bool precise = false, qualified_builtin = false;
    int first = 0;
    while (first < n->count - 1) {
        const char *p = n->parts[first].ident ? n->parts[first].ident : "";
        if (en_streq(p, "metal")) first++;
        else if (en_streq(p, "precise")) precise = true, qualified_builtin = true, first++;
        else if (en_streq(p, "fast")) qualified_builtin = true, first++;
        else break;
    }
    for (int i = 0; i < n->count - 1; i++)
        if (n->parts[i].ident && en_streq(n->parts[i].ident, "numeric_limits")) {
            if (e->args.count) {
                en_error(ck->diags, e->loc, "numeric_limits functions take no arguments");
                return NULL;
            }
            return numeric_limits(ck, callee, e->loc);
        }
    const char *last = ast_name_last(n);
    ck_sym *sym = qualified_builtin ? NULL : ck_lookup(ck, n);
    if (!sym && n->count - first == 1 && en_streq(last, "is_function_constant_defined"))
        return ck_is_function_constant_defined(ck, e);
    /* Apple's headers implement the library on compiler intrinsics, __metal_tanh(x, fast)
     * and the like, and kernel libraries call them directly (MLX's bf16_math.h): they are
     * the built-ins, their last argument the math mode, which enigma's precise math ignores */
    if (!sym && n->count - first == 1 && en_streq(last, "__metal_get_simdgroup_size")) {
        /* __metal_get_simdgroup_size(T()): the SIMD width, 32, as a T */
        arglist a = check_args(ck, &e->args);
        if (!a.ok) return NULL;
        ir_type *t = a.n == 1 && ir_is_integer(a.items[0]->type) ? a.items[0]->type : ck_t(ck, IR_T_U32);
        return ir_const_uint(ck->m, t, 32, callee->loc);
    }
    bool intrinsic = !sym && n->count - first == 1 && strncmp(last, "__metal_", 8) == 0 &&
                     (ck_is_builtin(last + 8) || ck_is_composite_builtin(last + 8));
    if (intrinsic) last += 8;
    if (!sym && ck_is_composite_builtin(last)) {
        arglist a = check_args(ck, &e->args);
        if (!a.ok) return NULL;
        if (intrinsic && a.n >= 2 && a.items[a.n - 1]->type->kind == IR_T_BOOL) a.n--;
        return ck_composite_builtin(ck, last, a.items, a.locs, a.n, callee->loc);
    }
    if (sym && sym->kind == SYM_TYPE) {
        arglist a = check_args(ck, &e->args);
        if (!a.ok) return NULL;
        return construct(ck, sym->type, a.items, a.locs, a.n, e->loc);
    }
    if (sym && sym->kind == SYM_VAR) return functor_call(ck, e, ck_expr(ck, callee));
    if (sym && sym->kind != SYM_FUNC) {
        en_error(ck->diags, callee->loc, "'%s' is not a function", name_text(ck, n));
        return NULL;
    }
    if (!sym && n->count - first == 1 && ck->this_var && ck->this_var->type->elem &&
        ck_has_method_inherited(ck, ck->this_var->type->elem, last)) {
        /* another member function of *this, called without `this->` */
        arglist a = check_args(ck, &e->args);
        if (!a.ok) return NULL;
        ir_expr *self = ir_deref(ck->m, ir_var_ref(ck->m, ck->this_var, callee->loc), callee->loc);
        return ck_call_method(ck, self, last, a.items, a.locs, a.n, callee->loc);
    }
    if (!sym && n->count - first == 1) {
        ir_type *bt = ck_named_builtin_type(ck->m, last);
        if (bt) {
            arglist a = check_args(ck, &e->args);
            if (!a.ok) return NULL;
            return construct(ck, bt, a.items, a.locs, a.n, e->loc);
        }
    }
    if (!sym && !ck_is_builtin(last)) {
        const char *why = ck_unsupported_type(last);
        if (why) en_error(ck->diags, callee->loc, "%s", why);
        else if (ck_unsupported_builtin(last))
            en_error(ck->diags, callee->loc, "the Metal function '%s' is not supported by enigma", last);
        else en_error(ck->diags, callee->loc, "use of undeclared identifier '%s'", name_text(ck, n));
        /* still check the arguments for their own errors */
        check_args(ck, &e->args);
        return NULL;
    }
    arglist a = check_args_for(ck, &e->args, sym && sym->kind == SYM_FUNC ? sym : NULL);
    if (!a.ok) return NULL;
    if (intrinsic && a.n >= 2 && a.items[a.n - 1]->type->kind == IR_T_BOOL && !en_streq(last, "select")) a.n--;
    for (int i = 0; intrinsic && i < a.n; i++) /* __metal_frexp(x, &e): the built-in's e is a reference */
        if (a.items[i]->type->kind == IR_T_PTR && a.items[i]->type->space == IR_SPACE_THREAD)
            a.items[i] = ir_deref(ck->m, a.items[i], a.locs[i]);
    if (intrinsic && a.n == 1 && ir_is_float(ir_scalar_of(a.items[0]->type)) &&
        (en_streq(last, "simd_and") || en_streq(last, "simd_or") || en_streq(last, "simd_xor") ||
         en_streq(last, "quad_and") || en_streq(last, "quad_or") || en_streq(last, "quad_xor")))
        return bitwise_on_bits(ck, last, a.items[0], a.locs[0], callee->loc);
    /* a user function that shares a built-in's name overloads it: the built-in serves the
     * calls none of the user's functions take, and the calls it takes exactly while the
     * user's need conversions (MLX's simd_shuffle_down(bool, ushort) and (long, ushort)
     * leave simd_shuffle_down(uint, ushort) to Metal's), as C++ overloading would */
    if (sym && n->count - first == 1 && ck_is_builtin(last)) {
        ck_viability v = ck_user_viable(ck, sym, n, a.items, a.n, callee->loc);
        if (v == CK_NOT_VIABLE) {
            sym = NULL;
        } else if (v == CK_VIABLE_CONVERTED && builtin_takes_exactly(ck, last, precise, &a, callee->loc)) {
            sym = NULL;
        }
    }
    /* diagnostics about the call point at the function's name */
    if (sym) return ck_call_user(ck, sym, sym->called_as ? sym->called_as : n, a.items, a.locs, a.n, callee->loc);
    ck_targ targs[4];
    bool ok;
    int tc = builtin_targs(ck, n, targs, 4, &ok);
    if (!ok) return NULL;
    return ck_builtin_call(ck, last, precise, a.items, a.locs, a.n, targs, tc, callee->loc);
}

/* ---- member access ------------------------------------------------------------------------ */
static int swizzle_lane(char c, int *set) {
    const char *xyzw = "xyzw", *rgba = "rgba";
    for (int i = 0; i < 4; i++) {
        if (c == xyzw[i]) { *set = 1; return i; }
        if (c == rgba[i]) { *set = 2; return i; }
    }
    return -1;
}

static ir_expr *member_expr(checker *ck, const ast_expr *e) {
    ir_expr *obj = ck_expr(ck, e->operand);
    if (!obj) return NULL;
    const char *name = e->member ? e->member : "";
    if (e->arrow) {
        if (obj->type->kind != IR_T_PTR) {
            en_error(ck->diags, e->loc, "member reference type '%s' is not a pointer; use '.'",
                     ck_type_name(ck, obj->type));
            return NULL;
        }
        obj = ir_deref(ck->m, obj, e->loc);
    } else if (obj->type->kind == IR_T_PTR) {
        en_error(ck->diags, e->loc, "member reference type '%s' is a pointer; use '->'",
                 ck_type_name(ck, obj->type));
        return NULL;
    }
    ir_type *t = obj->type;
    if (t->kind == IR_T_STRUCT) {
        if (!ir_is_place(obj)) obj = stash(ck, obj, e->loc);
        ir_expr *f = ck_member(ck, obj, name, e->loc);
        if (f) return f;
        /* a static data member through an object (MLX's reductions read `op.init`): the
         * object is not evaluated, as C++ allows for a side-effect-free operand */
        ck_sym *st = t->name ? ck_lookup_str(ck, en_fmt(ck->a, "%s::%s", t->name, name)) : NULL;
        if (st && st->kind == SYM_CONST && st->value) return st->value;
        if (st && st->kind == SYM_VAR && st->var && st->var->storage == IR_VAR_CONSTANT)
            return ir_var_ref(ck->m, st->var, e->loc);
        en_error(ck->diags, e->loc, "no member named '%s' in '%s'", name, ck_type_name(ck, t));
        return NULL;
    }
    if (t->kind == IR_T_VEC && !ck_is_vote(t)) {
        int len = (int)strlen(name), set = 0;
        uint8_t lanes[4];
        bool ok = len >= 1 && len <= 4;
        for (int i = 0; ok && i < len; i++) {
            int s = 0, l = swizzle_lane(name[i], &s);
            if (l < 0 || l >= (int)t->count || (set && s != set)) ok = false;
            else lanes[i] = (uint8_t)l, set = s;
        }
        if (!ok) {
            en_error(ck->diags, e->loc, "no member named '%s' in '%s'", name, ck_type_name(ck, t));
            return NULL;
        }
        ir_type *rt = len == 1 ? t->elem : ir_type_vec(ck->m, t->elem, (uint32_t)len, false);
        ir_expr *s = ir_expr_new(ck->m, IR_E_SWIZZLE, rt, e->loc, 1);
        s->args[0] = obj;
        memcpy(s->swizzle, lanes, (size_t)len);
        s->swizzle_len = len;
        return s;
    }
    en_error(ck->diags, e->loc, "no member named '%s' in '%s'", name, ck_type_name(ck, t));
    return NULL;
}

/* ---- subscripts ---------------------------------------------------------------------------- */
static ir_expr *index_value(checker *ck, const ast_expr *ie) {
    ir_expr *i = ck_expr(ck, ie);
    if (!i) return NULL;
    if (i->type->kind == IR_T_BOOL) i = ck_convert(ck, i, ck_t(ck, IR_T_I32), ie->loc);
    if (!ir_is_integer(i->type) || ck_is_vote(i->type)) {
        en_error(ck->diags, ie->loc, "array subscript is not an integer (it is '%s')", ck_type_name(ck, i->type));
        return NULL;
    }
    return i;
}

static ir_expr *subscript_expr(checker *ck, const ast_expr *e) {
    ir_expr *base = ck_expr(ck, e->operand);
    ir_expr *i = index_value(ck, e->index);
    if (!base || !i) return NULL;
    ir_type *t = base->type;
    if (t->kind == IR_T_STRUCT) {
        ir_expr *bi[2] = {base, i};
        en_loc locs[2] = {e->operand->loc, e->index->loc};
        return ck_operator_call(ck, "[]", bi, locs, 2, e->loc);
    }
    int64_t k;
    bool known = ck_const_int(ck, i, &k);
    if (t->kind == IR_T_PTR) {
        if (t->elem->kind == IR_T_VOID) {
            en_error(ck->diags, e->loc, "subscript of a pointer to void");
            return NULL;
        }
        return ir_index(ck->m, t->elem, base, i, e->loc);
    }
    if (t->kind == IR_T_ARRAY || (t->kind == IR_T_VEC && !ck_is_vote(t))) {
        if (known && (k < 0 || (uint64_t)k >= t->count)) {
            en_error(ck->diags, e->index->loc, "index %lld is past the end of '%s'", (long long)k,
                     ck_type_name(ck, t));
            return NULL;
        }
        if (!ir_is_place(base)) base = stash(ck, base, e->loc);
        if (!ir_is_place(base) && t->kind == IR_T_VEC && known)
            return lane_of(ck, base, (int)k, e->loc);
        return ir_index(ck->m, t->elem, base, i, e->loc);
    }
    en_error(ck->diags, e->loc, "subscripted value '%s' is not an array, pointer or vector",
             ck_type_name(ck, t));
    return NULL;
}

/* ---- operators ------------------------------------------------------------------------------- */
static ir_op binary_op(ast_op op) {
    switch (op) {
    case AST_OP_MUL: return IR_OP_MUL;
    case AST_OP_DIV: return IR_OP_DIV;
    case AST_OP_MOD: return IR_OP_REM;
    case AST_OP_ADD: return IR_OP_ADD;
    case AST_OP_SUB: return IR_OP_SUB;
    case AST_OP_SHL: return IR_OP_SHL;
    case AST_OP_SHR: return IR_OP_SHR;
    case AST_OP_LT: return IR_OP_LT;
    case AST_OP_GT: return IR_OP_GT;
    case AST_OP_LE: return IR_OP_LE;
    case AST_OP_GE: return IR_OP_GE;
    case AST_OP_EQ: return IR_OP_EQ;
    case AST_OP_NE: return IR_OP_NE;
    case AST_OP_BITAND: return IR_OP_AND;
    case AST_OP_BITXOR: return IR_OP_XOR;
    case AST_OP_BITOR: return IR_OP_OR;
    case AST_OP_LOGAND: return IR_OP_LOGAND;
    case AST_OP_LOGOR: return IR_OP_LOGOR;
    default: return IR_OP_NONE;
    }
}

static ir_expr *fold_or_keep(checker *ck, ir_expr *e) {
    ir_expr *f = ck_fold(ck, e);
    return f ? f : e;
}

/* a op b, both already checked values; shared by binary and compound assignment */
static ir_expr *arith(checker *ck, ir_op op, ir_expr *a, ir_expr *b, en_loc loc) {
    const char *sp = ir_op_name(op);
    if (is_void(a) || is_void(b)) {
        en_error(ck->diags, loc, "invalid operands to binary expression: a void value");
        return NULL;
    }
    if (op == IR_OP_MUL && a->type->kind == IR_T_SIMD_MATRIX && b->type->kind == IR_T_SIMD_MATRIX) {
        /* a * b of simdgroup matrices is simdgroup_multiply into a new matrix (Metal's
         * operator*; MLX's Winograd convolution writes it) */
        ir_var *d = ck_temp(ck, a->type, loc);
        ir_expr *args[3] = {ir_var_ref(ck->m, d, loc), a, b};
        en_loc locs[3] = {loc, loc, loc};
        if (!ck_builtin_call(ck, "simdgroup_multiply", false, args, locs, 3, NULL, 0, loc)) return NULL;
        return ir_var_ref(ck->m, d, loc);
    }
    /* pointer arithmetic */
    if (a->type->kind == IR_T_ARRAY && ir_is_place(a) && (op == IR_OP_ADD || op == IR_OP_SUB))
        a = ck_decay(ck, a, loc);
    if (a->type->kind == IR_T_PTR || b->type->kind == IR_T_PTR) {
        ir_expr *p = a->type->kind == IR_T_PTR ? a : b, *n = p == a ? b : a;
        if ((op == IR_OP_ADD || (op == IR_OP_SUB && p == a)) && ir_is_integer(n->type) &&
            n->type->kind != IR_T_VEC) {
            if (op == IR_OP_SUB)
                n = ir_unary(ck->m, IR_OP_NEG, ck_t(ck, IR_T_I64), ck_convert(ck, n, ck_t(ck, IR_T_I64), loc), loc);
            ir_expr *r = ir_expr_new(ck->m, IR_E_PTR_OFFSET, p->type, loc, 2);
            r->args[0] = p;
            r->args[1] = n;
            return r;
        }
        if (op == IR_OP_SUB && a->type == b->type) {
            en_error(ck->diags, loc, "pointer subtraction is not supported by enigma; subtract indices");
            return NULL;
        }
        if (op == IR_OP_EQ || op == IR_OP_NE) {
            /* p == q, p != nullptr: pointers to the same type in the same address space */
            if (ck_is_null_pointer(a) && b->type->kind == IR_T_PTR) a = ck_null_pointer(ck, b->type, loc);
            if (ck_is_null_pointer(b) && a->type->kind == IR_T_PTR) b = ck_null_pointer(ck, a->type, loc);
            if (a->type->kind == IR_T_PTR && b->type->kind == IR_T_PTR && a->type->elem == b->type->elem &&
                a->type->space == b->type->space) {
                if (a->type != b->type) { /* const on one side only */
                    ir_type *t = ir_type_ptr(ck->m, a->type->elem, a->type->space, true);
                    a = ck_implicit(ck, a, t, loc);
                    b = ck_implicit(ck, b, t, loc);
                }
                return ir_binary(ck->m, op, ck_t(ck, IR_T_BOOL), a, b, loc);
            }
        }
        if (op >= IR_OP_EQ && op <= IR_OP_GE) {
            en_error(ck->diags, loc, "comparing %s is not supported by enigma",
                     op == IR_OP_EQ || op == IR_OP_NE ? "pointers to different types or address spaces"
                                                      : "pointers by order");
            return NULL;
        }
        en_error(ck->diags, loc, "invalid operands to binary expression ('%s' %s '%s')",
                 ck_type_name(ck, a->type), sp, ck_type_name(ck, b->type));
        return NULL;
    }
    if (op == IR_OP_SHL || op == IR_OP_SHR) {
        if (!ck_is_arith(a->type) || !ck_is_arith(b->type) || ck_is_vote(a->type) ||
            ck_is_vote(b->type) || ir_is_float(ir_scalar_of(a->type)) ||
            ir_is_float(ir_scalar_of(b->type)) ||
            (b->type->kind == IR_T_VEC && a->type->kind != IR_T_VEC)) {
            en_error(ck->diags, loc, "invalid operands to binary expression ('%s' %s '%s')",
                     ck_type_name(ck, a->type), sp, ck_type_name(ck, b->type));
            return NULL;
        }
        ir_type *t = a->type->kind == IR_T_VEC ? a->type : ck_promote(ck, a->type);
        if (t->kind == IR_T_VEC && t->packed) t = ir_type_vec(ck->m, t->elem, t->count, false);
        if (b->type->kind == IR_T_VEC && b->type->count != t->count) {
            en_error(ck->diags, loc, "invalid operands to binary expression ('%s' %s '%s')",
                     ck_type_name(ck, a->type), sp, ck_type_name(ck, b->type));
            return NULL;
        }
        a = ck_convert(ck, a, t, loc);
        b = ck_convert(ck, b, b->type->kind == IR_T_VEC ? t : (ir_type *)t, loc);
        return fold_or_keep(ck, ir_binary(ck->m, op, t, a, b, loc));
    }
    if (ck_is_vote(a->type) || ck_is_vote(b->type)) {
        en_error(ck->diags, loc, "invalid operands to binary expression ('%s' %s '%s'); convert the simd_vote explicitly",
                 ck_type_name(ck, a->type), sp, ck_type_name(ck, b->type));
        return NULL;
    }
    if (!ck_arith_operands(ck, &a, &b, sp, loc)) return NULL;
    ir_type *t = a->type;
    const ir_type *s = ir_scalar_of(t);
    if ((op == IR_OP_REM || op == IR_OP_AND || op == IR_OP_OR || op == IR_OP_XOR) && ir_is_float(s)) {
        en_error(ck->diags, loc, "invalid operands to binary expression ('%s' %s '%s')%s",
                 ck_type_name(ck, t), sp, ck_type_name(ck, t), op == IR_OP_REM ? "; use fmod" : "");
        return NULL;
    }
    bool bool_vector_bits = s->kind == IR_T_BOOL && t->kind == IR_T_VEC &&
                            (op == IR_OP_AND || op == IR_OP_OR || op == IR_OP_XOR);
    if (s->kind == IR_T_BOOL && op >= IR_OP_ADD && op <= IR_OP_XOR && !bool_vector_bits) {
        /* bool arithmetic promotes to int (bool vectors keep their lanes for & | ^) */
        ir_type *it = t->kind == IR_T_VEC ? ir_type_vec(ck->m, ck_t(ck, IR_T_I32), t->count, false) : ck_t(ck, IR_T_I32);
        a = ck_convert(ck, a, it, loc);
        b = ck_convert(ck, b, it, loc);
        t = it;
    }
    ir_type *rt = t;
    if (op >= IR_OP_EQ && op <= IR_OP_GE) rt = ck_bool_like(ck, t);
    if (op == IR_OP_LOGAND || op == IR_OP_LOGOR) {
        rt = ck_bool_like(ck, t);
        a = ck_convert(ck, a, rt, loc);
        b = ck_convert(ck, b, rt, loc);
    }
    if ((op == IR_OP_DIV || op == IR_OP_REM) && !ir_is_float(s)) {
        int64_t z;
        /* (in code a constant condition leaves out, as the arm of MLX's quantize kernel that
         * divides by writes_per_reduce when that is 0, it is never evaluated: no error) */
        if (ck_const_int(ck, b, &z) && z == 0 && t->kind != IR_T_VEC && !ck->dead_code) {
            en_error(ck->diags, loc, "division by zero");
            return NULL;
        }
    }
    return fold_or_keep(ck, ir_binary(ck->m, op, rt, a, b, loc));
}

/* a && b, a || b: b runs only when it must */
static ir_expr *logical(checker *ck, const ast_expr *e) {
    bool is_and = e->op == AST_OP_LOGAND;
    ir_expr *raw = ck_expr(ck, e->lhs);
    if (raw && raw->type->kind == IR_T_VEC && !ck_is_vote(raw->type)) {
        /* vectors: component-wise, both sides evaluated (no short circuit) */
        ir_expr *b = ck_expr(ck, e->rhs);
        if (!b) return NULL;
        ir_type *bt = ck_bool_like(ck, raw->type);
        if (!ck_is_arith(b->type) || ck_is_vote(b->type) || (b->type->kind == IR_T_VEC && b->type->count != raw->type->count)) {
            en_error(ck->diags, e->loc, "invalid operands to binary expression ('%s' %s '%s')",
                     ck_type_name(ck, raw->type), is_and ? "&&" : "||", ck_type_name(ck, b->type));
            return NULL;
        }
        return ir_binary(ck->m, is_and ? IR_OP_LOGAND : IR_OP_LOGOR, bt, ck_convert(ck, raw, bt, e->loc),
                         ck_convert(ck, b, bt, e->loc), e->loc);
    }
    ir_expr *a = ck_condition(ck, raw, e->lhs ? e->lhs->loc : e->loc);
    ir_stmt *outer = ck->block;
    ir_stmt *rhs_block = ir_block(ck->m, e->loc);
    ck->block = rhs_block;
    ir_expr *fa = a ? ck_fold(ck, a) : NULL;
    bool rhs_dead = fa && fa->kind == IR_E_CONST && (fa->c.u != 0) != is_and;
    ck->dead_code += rhs_dead;
    ir_expr *b = ck_condition(ck, ck_expr(ck, e->rhs), e->rhs ? e->rhs->loc : e->loc);
    ck->dead_code -= rhs_dead;
    ck->block = outer;
    if (!a || !b) return NULL;
    if (a->type->kind != IR_T_BOOL || b->type->kind != IR_T_BOOL) return NULL;
    /* a constant left side decides alone (false && x, true || x): the result is that
     * constant, so an `if` on it leaves its dead branch out (MLX's quantize kernel) */
    if (rhs_dead) return ir_const_bool(ck->m, !is_and, e->loc);
    if (rhs_block->stmt_count == 0 && !may_fault(b))
        return fold_or_keep(ck, ir_binary(ck->m, is_and ? IR_OP_LOGAND : IR_OP_LOGOR, ck_t(ck, IR_T_BOOL), a, b, e->loc));
    /* t = a; if (t) { rhs; t = b; }   (|| tests !t) */
    ir_var *t = ck_temp_init(ck, ck_t(ck, IR_T_BOOL), a, e->loc);
    ir_expr *tv = ir_var_ref(ck->m, t, e->loc);
    ir_block_append(ck->m, rhs_block, ir_assign(ck->m, ir_var_ref(ck->m, t, e->loc), b, e->loc));
    t->is_assigned = true;
    ir_expr *c = is_and ? tv : ir_unary(ck->m, IR_OP_NOT, ck_t(ck, IR_T_BOOL), tv, e->loc);
    ck_emit(ck, ir_if(ck->m, c, rhs_block, NULL, e->loc));
    return ir_var_ref(ck->m, t, e->loc);
}

static ir_expr *conditional(checker *ck, const ast_expr *e) {
    ir_expr *c = ck_expr(ck, e->cond);
    if (c && c->type->kind == IR_T_VEC) {
        en_error(ck->diags, e->cond->loc, "a vector condition in '?:' is not supported; use select()");
        return NULL;
    }
    c = ck_condition(ck, c, e->cond ? e->cond->loc : e->loc);
    ir_stmt *outer = ck->block;
    ir_stmt *ba = ir_block(ck->m, e->loc), *bb = ir_block(ck->m, e->loc);
    ir_expr *fc = c ? ck_fold(ck, c) : NULL;
    bool known = fc && fc->kind == IR_E_CONST;
    ck->block = ba;
    ck->dead_code += known && !fc->c.u;
    ir_expr *a = ck_expr(ck, e->lhs);
    ck->dead_code -= known && !fc->c.u;
    ck->block = bb;
    ck->dead_code += known && fc->c.u;
    ir_expr *b = ck_expr(ck, e->rhs);
    ck->dead_code -= known && fc->c.u;
    ck->block = outer;
    if (!c || !a || !b) return NULL;
    /* an array arm beside a pointer arm decays (MLX's gemv: `n == 0 ? nullptr : tgp_memory`) */
    if (a->type->kind == IR_T_ARRAY && ir_is_place(a) && b->type->kind == IR_T_PTR) a = ck_decay(ck, a, e->loc);
    if (b->type->kind == IR_T_ARRAY && ir_is_place(b) && a->type->kind == IR_T_PTR) b = ck_decay(ck, b, e->loc);
    ir_type *t;
    if (is_void(a) && is_void(b)) {
        t = a->type;
    } else if (ck_is_arith(a->type) && ck_is_arith(b->type) && !ck_is_vote(a->type) && !ck_is_vote(b->type)) {
        /* convert each arm inside its own block */
        ir_expr *pa = a, *pb = b;
        if (!ck_arith_operands(ck, &pa, &pb, ":", e->loc)) return NULL;
        t = pa->type;
        a = pa;
        b = pb;
    } else if (a->type == b->type) {
        t = a->type;
    } else if (a->type->kind == IR_T_PTR && ck_is_null_pointer(b)) {
        t = a->type;
        b = ck_null_pointer(ck, t, e->loc);
    } else if (b->type->kind == IR_T_PTR && ck_is_null_pointer(a)) {
        t = b->type;
        a = ck_null_pointer(ck, t, e->loc);
    } else if (a->type->kind == IR_T_PTR && b->type->kind == IR_T_PTR && a->type->elem == b->type->elem &&
               a->type->space == b->type->space) {
        t = ir_type_ptr(ck->m, a->type->elem, a->type->space, true);
        a = ck_implicit(ck, a, t, e->loc);
        b = ck_implicit(ck, b, t, e->loc);
    } else {
        en_error(ck->diags, e->loc, "incompatible operand types ('%s' and '%s') in '?:'",
                 ck_type_name(ck, a->type), ck_type_name(ck, b->type));
        return NULL;
    }
    if (t->kind == IR_T_VOID) {
        ck_emit(ck, ir_if(ck->m, c, ba, bb, e->loc));
        return void_expr(ck, e->loc);
    }
    if (ba->stmt_count == 0 && bb->stmt_count == 0 && !may_fault(a) && !may_fault(b)) {
        ir_expr *f = ck_fold(ck, c);
        if (f && f->kind == IR_E_CONST) return f->c.u ? a : b;
        ir_expr *s = ir_expr_new(ck->m, IR_E_SELECT, t, e->loc, 3);
        s->args[0] = c;
        s->args[1] = a;
        s->args[2] = b;
        return s;
    }
    ir_var *r = ck_temp(ck, t, e->loc);
    ir_block_append(ck->m, ba, ir_assign(ck->m, ir_var_ref(ck->m, r, e->loc), a, e->loc));
    ir_block_append(ck->m, bb, ir_assign(ck->m, ir_var_ref(ck->m, r, e->loc), b, e->loc));
    r->is_assigned = true;
    ck_emit(ck, ir_if(ck->m, c, ba, bb, e->loc));
    return ir_var_ref(ck->m, r, e->loc);
}

/* a named constant (constexpr, const with a constant initializer, enumerator) as the
 * target of an assignment: say so by name rather than "not assignable" */
static bool named_constant_target(checker *ck, const ast_expr *target, en_loc loc) {
    if (!target || target->kind != AST_EXPR_NAME) return false;
    ck_sym *s = ck_lookup(ck, &target->name);
    if (!s || s->kind != SYM_CONST) return false;
    en_error(ck->diags, loc, "cannot assign to '%s': it is const", name_text(ck, &target->name));
    return true;
}

static ir_expr *incdec(checker *ck, const ast_expr *e) {
    if (named_constant_target(ck, e->operand, e->loc)) return NULL;
    ir_expr *p = ck_expr(ck, e->operand);
    if (!p || !writable(ck, p, e->loc)) return NULL;
    bool inc = e->op == AST_OP_PREINC || e->op == AST_OP_POSTINC;
    bool post = e->op == AST_OP_POSTINC || e->op == AST_OP_POSTDEC;
    ir_type *t = p->type;
    if (!(ir_is_scalar(t) && t->kind != IR_T_BOOL) && !(t->kind == IR_T_VEC && !ck_is_vote(t)) &&
        t->kind != IR_T_PTR) {
        en_error(ck->diags, e->loc, "cannot %s a value of type '%s'", inc ? "increment" : "decrement",
                 ck_type_name(ck, t));
        return NULL;
    }
    ir_expr *old = p;
    if (post) {
        ir_var *tmp = ck_temp_init(ck, t, p, e->loc);
        old = ir_var_ref(ck->m, tmp, e->loc);
    }
    ir_expr *one = ir_const_int(ck->m, ck_t(ck, IR_T_I32), 1, e->loc);
    ir_expr *nv = arith(ck, inc ? IR_OP_ADD : IR_OP_SUB, old, one, e->loc);
    if (!nv) return NULL;
    emit_assign(ck, p, ck_convert(ck, nv, t, e->loc), e->loc);
    return post ? ir_var_ref(ck->m, old->var, e->loc) : p;
}

static ir_expr *unary_expr(checker *ck, const ast_expr *e) {
    switch (e->op) {
    case AST_OP_PREINC: case AST_OP_PREDEC: case AST_OP_POSTINC: case AST_OP_POSTDEC:
        return incdec(ck, e);
    default: break;
    }
    ir_expr *a = ck_expr(ck, e->operand);
    if (!a) return NULL;
    ir_type *t = a->type;
    switch (e->op) {
    case AST_OP_DEREF:
        if (t->kind == IR_T_ARRAY && ir_is_place(a)) return ir_index(ck->m, t->elem, a, ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, e->loc), e->loc);
        if (t->kind != IR_T_PTR || t->elem->kind == IR_T_VOID) {
            en_error(ck->diags, e->loc, "indirection requires a pointer operand ('%s' invalid)", ck_type_name(ck, t));
            return NULL;
        }
        return ir_deref(ck->m, a, e->loc);
    case AST_OP_ADDR:
        if (!ir_is_place(a)) {
            en_error(ck->diags, e->loc, "cannot take the address of a value that is not stored");
            return NULL;
        }
        if (a->kind == IR_E_SWIZZLE) {
            en_error(ck->diags, e->loc, "cannot take the address of a vector component");
            return NULL;
        }
        return ck_addr_of(ck, a, e->loc);
    default: break;
    }
    if (t->kind == IR_T_STRUCT && (e->op == AST_OP_NEG || e->op == AST_OP_PLUS || e->op == AST_OP_NOT ||
                                   e->op == AST_OP_BITNOT)) {
        /* -x of a struct: its operator- (MLX's complex_t) */
        ir_expr *args[1] = {a};
        en_loc locs[1] = {e->loc};
        return ck_operator_call(ck, ast_op_spelling(e->op), args, locs, 1, e->loc);
    }
    if (e->op == AST_OP_NOT && t->kind == IR_T_PTR) { /* !p is p == nullptr */
        ir_expr *c = ck_condition(ck, a, e->loc);
        return c ? ir_unary(ck->m, IR_OP_NOT, ck_t(ck, IR_T_BOOL), c, e->loc) : NULL;
    }
    if (!ck_is_arith(t) || ck_is_vote(t)) {
        en_error(ck->diags, e->loc, "invalid argument type '%s' to unary expression '%s'",
                 ck_type_name(ck, t), ast_op_spelling(e->op));
        return NULL;
    }
    switch (e->op) {
    case AST_OP_PLUS: {
        ir_type *rt = t->kind == IR_T_VEC ? t : ck_promote(ck, t);
        return ck_convert(ck, a, rt, e->loc);
    }
    case AST_OP_NEG: {
        ir_type *rt = t->kind == IR_T_VEC ? t : ck_promote(ck, t);
        if (ir_scalar_of(rt)->kind == IR_T_BOOL) rt = ck_t(ck, IR_T_I32);
        return fold_or_keep(ck, ir_unary(ck->m, IR_OP_NEG, rt, ck_convert(ck, a, rt, e->loc), e->loc));
    }
    case AST_OP_NOT: {
        if (t->kind == IR_T_VEC) {
            ir_type *bt = ck_bool_like(ck, t);
            return ir_unary(ck->m, IR_OP_NOT, bt, ck_convert(ck, a, bt, e->loc), e->loc);
        }
        ir_expr *c = ck_condition(ck, a, e->loc);
        return c ? fold_or_keep(ck, ir_unary(ck->m, IR_OP_NOT, ck_t(ck, IR_T_BOOL), c, e->loc)) : NULL;
    }
    case AST_OP_BITNOT: {
        if (ir_is_float(ir_scalar_of(t))) {
            en_error(ck->diags, e->loc, "invalid argument type '%s' to unary expression '~'", ck_type_name(ck, t));
            return NULL;
        }
        ir_type *rt = t->kind == IR_T_VEC ? t : ck_promote(ck, t);
        return fold_or_keep(ck, ir_unary(ck->m, IR_OP_BITNOT, rt, ck_convert(ck, a, rt, e->loc), e->loc));
    }
    default:
        return NULL;
    }
}

static ir_expr *assign_expr(checker *ck, const ast_expr *e) {
    /* C++17: the right operand is sequenced before the left */
    if (named_constant_target(ck, e->lhs, e->loc)) return NULL;
    ir_expr *rhs;
    ir_expr *place;
    if (e->rhs && e->rhs->kind == AST_EXPR_INIT_LIST && e->op == AST_OP_NONE) {
        place = ck_expr(ck, e->lhs);
        if (!place) return NULL;
        rhs = ck_initializer(ck, place->type, e->rhs, e->rhs->loc);
    } else {
        rhs = ck_expr(ck, e->rhs);
        place = ck_expr(ck, e->lhs);
    }
    if (place && rhs && e->op != AST_OP_NONE) {
        ir_expr *pr[2] = {place, rhs};
        if (ck_wants_operator(pr, 2)) {
            en_loc locs[2] = {e->lhs->loc, e->rhs->loc};
            const char *spelling = en_fmt(ck->a, "%s=", ast_op_spelling(e->op));
            if (place->type->kind == IR_T_STRUCT)
                return ck_operator_call(ck, spelling, pr, locs, 2, e->loc);
            /* a built-in place and a struct value: a user operator, else the built-in one on
             * what the struct converts to (MLX: `src += off_x * str_y` with Int<1> strides) */
            en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
            en_diags *loud = ck->diags;
            ck->diags = &quiet;
            ir_expr *r = ck_operator_call(ck, spelling, pr, locs, 2, e->loc);
            ir_type *want = place->type->kind == IR_T_PTR ? ck_t(ck, IR_T_I32) : place->type;
            ir_expr *converted = r && !quiet.errors ? NULL : ck_struct_conversion(ck, rhs, want, e->rhs->loc);
            ck->diags = loud;
            if (r && !quiet.errors) return r;
            if (!converted) return ck_operator_call(ck, spelling, pr, locs, 2, e->loc);
            rhs = converted;
        }
    }
    if (!place || !rhs || !writable(ck, place, e->loc)) return NULL;
    ir_expr *value;
    if (e->op == AST_OP_NONE) {
        if (is_void(rhs)) {
            en_error(ck->diags, e->loc, "assigning a void value");
            return NULL;
        }
        value = ck_implicit(ck, rhs, place->type, e->rhs ? e->rhs->loc : e->loc);
    } else {
        ir_op op = binary_op(e->op);
        if (op == IR_OP_NONE || op == IR_OP_LOGAND || op == IR_OP_LOGOR) return NULL;
        ir_expr *r = arith(ck, op, place, rhs, e->loc);
        if (!r) return NULL;
        if (r->type->kind == IR_T_VEC && place->type->kind != IR_T_VEC) {
            en_error(ck->diags, e->loc, "cannot assign '%s' to '%s'", ck_type_name(ck, r->type),
                     ck_type_name(ck, place->type));
            return NULL;
        }
        value = place->type->kind == IR_T_PTR ? r : ck_convert(ck, r, place->type, e->loc);
    }
    if (!value) return NULL;
    emit_assign(ck, place, value, e->loc);
    return place;
}

static ir_expr *cast_expr(checker *ck, const ast_expr *e) {
    if (e->type && e->type->kind == AST_TYPE_REF &&
        (e->cast_kind == AST_CAST_REINTERPRET || e->cast_kind == AST_CAST_CONST)) {
        /* reinterpret_cast<thread T&>(x) is *reinterpret_cast<thread T*>(&x) (MLX steel:
         * reinterpret_cast<thread frag_type&>(m.thread_elements()) = a) */
        bool is_ref = false;
        ir_type *pt = ck_decl_type(ck, e->type, &is_ref, false);
        ir_expr *x = ck_expr(ck, e->operand);
        if (!pt || !x) return NULL;
        if (!ir_is_place(x) || x->kind == IR_E_SWIZZLE) {
            en_error(ck->diags, e->operand->loc, "a reference cast needs a variable or an element, not a value");
            return NULL;
        }
        ir_expr *addr = ck_addr_of(ck, x, e->loc);
        if (addr->type->space != pt->space) {
            en_error(ck->diags, e->loc, "cannot cast '%s' to a %s reference: address spaces differ",
                     ck_type_name(ck, x->type), ir_space_name(pt->space));
            return NULL;
        }
        ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, pt, e->loc, 1);
        p->args[0] = addr;
        return ir_deref(ck->m, p, e->loc);
    }
    ir_type *t = ck_type(ck, e->type);
    ir_expr *a = ck_expr(ck, e->operand);
    if (!t || !a) return NULL;
    switch (e->cast_kind) {
    case AST_CAST_C:
    case AST_CAST_STATIC:
        if (t->kind == IR_T_VEC && a->type->kind == IR_T_VEC && a->type->count != t->count) {
            en_error(ck->diags, e->loc, "cannot convert '%s' to '%s': vectors of different lengths",
                     ck_type_name(ck, a->type), ck_type_name(ck, t));
            return NULL;
        }
        if (e->cast_kind == AST_CAST_STATIC && a->type->kind == IR_T_PTR && t->kind == IR_T_PTR &&
            a->type->elem != t->elem && a->type->elem->kind != IR_T_VOID && t->elem->kind != IR_T_VOID) {
            en_error(ck->diags, e->loc, "static_cast from '%s' to '%s' is not allowed; use reinterpret_cast",
                     ck_type_name(ck, a->type), ck_type_name(ck, t));
            return NULL;
        }
        if (t->kind == IR_T_VOID) return void_expr(ck, e->loc);
        return ck_explicit(ck, a, t, e->loc);
    case AST_CAST_REINTERPRET:
    case AST_CAST_CONST:
        if (a->type->kind == IR_T_ARRAY && ir_is_place(a)) a = ck_decay(ck, a, e->loc);
        if (a->type->kind != IR_T_PTR || t->kind != IR_T_PTR) {
            en_error(ck->diags, e->loc, "%s is supported only between pointers in enigma ('%s' to '%s')",
                     e->cast_kind == AST_CAST_CONST ? "const_cast" : "reinterpret_cast",
                     ck_type_name(ck, a->type), ck_type_name(ck, t));
            return NULL;
        }
        if (a->type->space != t->space) {
            en_error(ck->diags, e->loc, "cannot cast '%s' to '%s': address spaces differ",
                     ck_type_name(ck, a->type), ck_type_name(ck, t));
            return NULL;
        }
        if (a->type == t) return a;
        {
            ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, t, e->loc, 1);
            p->args[0] = a;
            return p;
        }
    case AST_CAST_AS_TYPE: {
        bool ok_from = ck_is_arith(a->type) && !ck_is_vote(a->type);
        bool ok_to = ck_is_arith(t);
        if (!ok_from || !ok_to) {
            en_error(ck->diags, e->loc, "as_type needs scalar or vector types ('%s' to '%s')",
                     ck_type_name(ck, a->type), ck_type_name(ck, t));
            return NULL;
        }
        if (a->type->size != t->size) {
            en_error(ck->diags, e->loc, "as_type from '%s' (%u bytes) to '%s' (%u bytes): sizes differ",
                     ck_type_name(ck, a->type), a->type->size, ck_type_name(ck, t), t->size);
            return NULL;
        }
        if (a->type == t) return a;
        ir_expr *b = ir_expr_new(ck->m, IR_E_BITCAST, t, e->loc, 1);
        b->args[0] = a;
        return b;
    }
    }
    return NULL;
}

static ir_expr *size_expr(checker *ck, const ast_expr *e) {
    ir_type *t = NULL;
    if (e->type) {
        t = ck_type(ck, e->type);
    } else {
        /* unevaluated: its statements are thrown away */
        ir_stmt *outer = ck->block;
        ck->block = ir_block(ck->m, e->loc);
        ir_expr *a = ck_expr(ck, e->operand);
        ck->block = outer;
        if (a) t = a->type;
    }
    if (!t) return NULL;
    if (t->kind == IR_T_VOID) {
        en_error(ck->diags, e->loc, "invalid application of '%s' to void",
                 e->kind == AST_EXPR_SIZEOF ? "sizeof" : "alignof");
        return NULL;
    }
    uint64_t v = e->kind == AST_EXPR_SIZEOF ? t->size : t->align;
    return ir_const_uint(ck->m, ck_t(ck, IR_T_U64), v, e->loc);
}

static ir_expr *construct_expr(checker *ck, const ast_expr *e) {
    ir_type *t = ck_type(ck, e->type);
    if (!t) {
        check_args(ck, &e->args);
        return NULL;
    }
    if (e->brace) {
        /* T{a, b}: an initializer list of T */
        ast_expr list = *e;
        list.kind = AST_EXPR_INIT_LIST;
        return ck_initializer(ck, t, &list, e->loc);
    }
    arglist a = check_args(ck, &e->args);
    if (!a.ok) return NULL;
    return construct(ck, t, a.items, a.locs, a.n, e->loc);
}

ir_expr *ck_expr(checker *ck, const ast_expr *e) {
    if (!e || ck->c->arena.out_of_memory) return NULL;
    switch (e->kind) {
    case AST_EXPR_ERROR: return NULL;
    case AST_EXPR_INT: return int_literal(ck, e);
    case AST_EXPR_FLOAT: return float_literal(ck, e);
    case AST_EXPR_CHAR: return ir_const_uint(ck->m, ck_t(ck, IR_T_I8), e->ival & 0xff, e->loc);
    case AST_EXPR_BOOL: return ir_const_bool(ck->m, e->ival != 0, e->loc);
    case AST_EXPR_STRING:
        en_error(ck->diags, e->loc, "string literals are not supported by enigma");
        return NULL;
    case AST_EXPR_NAME: return name_expr(ck, e);
    case AST_EXPR_THIS:
        if (ck->this_var) return ir_var_ref(ck->m, ck->this_var, e->loc);
        en_error(ck->diags, e->loc, "'this' can only be used inside a member function");
        return NULL;
    case AST_EXPR_CALL: return call_expr(ck, e);
    case AST_EXPR_CONSTRUCT: return construct_expr(ck, e);
    case AST_EXPR_CAST: return cast_expr(ck, e);
    case AST_EXPR_SIZEOF: case AST_EXPR_ALIGNOF: return size_expr(ck, e);
    case AST_EXPR_MEMBER: return member_expr(ck, e);
    case AST_EXPR_SUBSCRIPT: return subscript_expr(ck, e);
    case AST_EXPR_UNARY: return unary_expr(ck, e);
    case AST_EXPR_BINARY: {
        if (e->op == AST_OP_COMMA) {
            ck_expr(ck, e->lhs);
            return ck_expr(ck, e->rhs);
        }
        if (e->op == AST_OP_LOGAND || e->op == AST_OP_LOGOR) return logical(ck, e);
        ir_expr *a = ck_expr(ck, e->lhs);
        ir_expr *b = ck_expr(ck, e->rhs);
        if (!a || !b) return NULL;
        ir_expr *ab[2] = {a, b};
        if (ck_wants_operator(ab, 2)) {
            en_loc locs[2] = {e->lhs->loc, e->rhs->loc};
            /* a user operator; failing that, the built-in one on what the struct operands
             * convert to (MLX: `short * integral_constant<int, 1>` through operator int()) */
            en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
            en_diags *loud = ck->diags;
            ck->diags = &quiet;
            ir_expr *r = ck_operator_call(ck, ast_op_spelling(e->op), ab, locs, 2, e->loc);
            ck->diags = loud;
            if (r && !quiet.errors) return r;
            ir_expr *ca = a->type->kind == IR_T_STRUCT && b->type->kind != IR_T_STRUCT
                              ? ck_struct_conversion(ck, a, b->type, e->lhs->loc) : a;
            ir_expr *cb = b->type->kind == IR_T_STRUCT && a->type->kind != IR_T_STRUCT
                              ? ck_struct_conversion(ck, b, a->type, e->rhs->loc) : b;
            if (ca && cb && ca->type->kind != IR_T_STRUCT && cb->type->kind != IR_T_STRUCT && binary_op(e->op) != IR_OP_NONE)
                return arith(ck, binary_op(e->op), ca, cb, e->loc);
            return ck_operator_call(ck, ast_op_spelling(e->op), ab, locs, 2, e->loc);
        }
        ir_op op = binary_op(e->op);
        if (op == IR_OP_NONE) return NULL;
        return arith(ck, op, a, b, e->loc);
    }
    case AST_EXPR_ASSIGN: return assign_expr(ck, e);
    case AST_EXPR_COND: return conditional(ck, e);
    case AST_EXPR_INIT_LIST:
        en_error(ck->diags, e->loc, "an initializer list cannot be used here; name its type, e.g. float4{...}");
        return NULL;
    case AST_EXPR_DESIGNATOR:
        en_error(ck->diags, e->loc, "an array designator [i] = ... can only initialize an array");
        return NULL;
    }
    return NULL;
}

ir_expr *ck_rvalue(checker *ck, const ast_expr *e) { return ck_expr(ck, e); }

ir_expr *ck_expr_to(checker *ck, const ast_expr *e, ir_type *t) {
    if (!e || !t) return NULL;
    if (e->kind == AST_EXPR_INIT_LIST) return ck_initializer(ck, t, e, e->loc);
    ir_expr *v = ck_expr(ck, e);
    if (!v) return NULL;
    if (is_void(v)) {
        en_error(ck->diags, e->loc, "cannot convert 'void' to '%s'", ck_type_name(ck, t));
        return NULL;
    }
    return ck_implicit(ck, v, t, e->loc);
}

bool ck_const_expr(checker *ck, const ast_expr *e, int64_t *out, const char *what) {
    if (!e || e->kind == AST_EXPR_ERROR) return false;
    ir_stmt *outer = ck->block;
    ir_stmt *scratch = ir_block(ck->m, e->loc);
    ck->block = scratch;
    ir_expr *v = ck_expr(ck, e);
    ck->block = outer;
    if (!v) return false;
    if (scratch->stmt_count || !ck_const_int(ck, v, out)) {
        en_error(ck->diags, e->loc, "%s must be an integer constant expression", what);
        return false;
    }
    return true;
}
