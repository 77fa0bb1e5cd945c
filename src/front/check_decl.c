/* check_decl.c — declarations: written types, variables and initializers, structs,
 * enums, aliases, namespaces, program-scope constants, functions, kernels (parameters,
 * bindings, position attributes), calls of user functions with overload resolution, and
 * function templates instantiated per distinct argument set.
 *
 * Needs: the expression and statement walks. Guarantees: every kernel becomes an ir_func
 * with is_kernel, its parameters classified (BUFFER / THREADGROUP / ATTR) with bindings
 * checked and assigned as Metal does; helpers and template instantiations ("f<float>")
 * become ir_funcs that IR_S_CALL statements name; program-scope `constant` variables are
 * module globals with folded initializers. */
#include "check.h"

#include <string.h>

#define MAX_INST_DEPTH 32

/* ---- written types -------------------------------------------------------------------- */
static ir_space space_of(ast_addr_space s) {
    switch (s) {
    case AST_AS_DEVICE: return IR_SPACE_DEVICE;
    case AST_AS_CONSTANT: return IR_SPACE_CONSTANT;
    case AST_AS_THREADGROUP: return IR_SPACE_THREADGROUP;
    default: return IR_SPACE_THREAD;
    }
}

bool ck_targ_value(checker *ck, const ast_targ *ta, ir_type **type, int64_t *value) {
    *type = NULL;
    *value = 0;
    if (ta->type) return (*type = ck_type(ck, ta->type)) != NULL;
    if (ta->expr && ta->expr->kind == AST_EXPR_NAME) {
        ck_sym *s = ck_lookup(ck, &ta->expr->name);
        if (s && s->kind == SYM_TYPE) return (*type = s->type) != NULL;
        if (!s) {
            ir_type *t = ck_named_builtin_type(ck->m, ast_name_last(&ta->expr->name));
            if (t) return (*type = t) != NULL;
            /* a value trait written where a type goes (is_same<T, float> as an argument) */
            const ast_name_part *last = &ta->expr->name.parts[ta->expr->name.count - 1];
            if (last->has_targs && (t = ck_type_name_lookup(ck, &ta->expr->name, false))) return (*type = t) != NULL;
        }
    }
    return ck_const_expr(ck, ta->expr, value, "a template argument");
}

ir_type *ck_type_name_lookup(checker *ck, const ast_name *n, bool report) {
    if (!n || n->count < 1 || !n->parts) return NULL;
    const ast_name_part *last = &n->parts[n->count - 1];
    const char *id = last->ident ? last->ident : "";
    const char *full = ast_name_str(ck->a, n);
    while (strncmp(full, "metal::", 7) == 0) full += 7;
    if (last->has_targs) {
        if (ck_is_template_builtin_type(id) || en_streq(id, "array")) {
            int count = last->targs.count < 4 ? last->targs.count : 4;
            ir_type *types[4] = {0};
            int64_t values[4] = {0};
            for (int i = 0; i < count; i++)
                if (!ck_targ_value(ck, &last->targs.items[i], &types[i], &values[i])) return NULL;
            if (en_streq(id, "array")) {
                if (count != 2 || !types[0] || types[1] || values[1] <= 0) {
                    en_error(ck->diags, n->loc, "'array' needs a type and a positive length");
                    return NULL;
                }
                return ir_type_array(ck->m, types[0], (uint32_t)values[1]);
            }
            return ck_template_builtin_type(ck, id, types, values, count, n->loc);
        }
        ck_sym *ts = ck_lookup(ck, n);
        if (ts && ts->kind == SYM_TYPE && !ts->class_template && !ts->other_template && ts->type &&
            ts->type->kind == IR_T_STRUCT && ts->type->name && strchr(ts->type->name, '<')) {
            /* inside a class template instance its name is the instance (C++'s injected-class
             * name); with arguments it names the template again: LoopedElemToLoc<DIM - 1, ...>
             * as a member of LoopedElemToLoc<DIM, ...> (MLX's utils.h) */
            const char *tn = ts->type->name;
            ck_sym *tmpl = ck_find_in_scope(ck->globals, en_strndup(ck->a, tn, (size_t)(strchr(tn, '<') - tn)));
            if (tmpl && tmpl->kind == SYM_TYPE && tmpl->class_template) ts = tmpl;
        }
        if (ts && ts->kind == SYM_TYPE && ts->class_template) return ck_class_instantiate(ck, ts, last, n->loc);
        if (ts && ts->kind == SYM_TYPE && ts->func_type_of) {
            if (report) en_error(ck->diags, n->loc, "%s", ck_fptr_type_refusal(ck, ts, full));
            return NULL;
        }
        if (ts && ts->kind == SYM_TYPE && ts->other_template) return ck_alias_template_type(ck, ts, last, n->loc);
        if (!ts) {
            /* a built-in value trait used as a type (`_disjunction<is_same<T, int>, ...>`):
             * the bool_constant of its value, true_type or false_type */
            ast_name_part parts[2] = {*last, {.ident = "value"}};
            ast_name as_value = {.parts = parts, .count = 2, .loc = n->loc};
            bool handled = false;
            ir_expr *v = ck_type_trait_value(ck, &as_value, n->loc, &handled);
            if (handled) {
                ck_sym *b = v ? ck_lookup_str(ck, v->c.u ? "metal::true_type" : "metal::false_type") : NULL;
                return b && b->kind == SYM_TYPE ? b->type : NULL;
            }
        }
        if (report) {
            const char *why = ck_unsupported_type(id);
            if (why) en_error(ck->diags, n->loc, "%s", why);
            else if (ts) en_error(ck->diags, n->loc, "'%s' is not a template", ast_name_str(ck->a, n));
            else en_error(ck->diags, n->loc, "unknown template '%s'", full);
        }
        return NULL;
    }
    if (en_streq(full, "simd_vote") || en_streq(full, "quad_vote")) return ck_vote_type(ck->m);
    if (en_streq(full, "simd_vote::vote_t") || en_streq(full, "quad_vote::vote_t"))
        return ck_t(ck, en_streq(full, "quad_vote::vote_t") ? IR_T_U16 : IR_T_U64);
    ck_sym *s = ck_lookup(ck, n);
    if (s && s->kind == SYM_TYPE && s->class_template) {
        if (report)
            en_error(ck->diags, n->loc, "class template '%s' needs template arguments", full);
        return NULL;
    }
    if (s && s->kind == SYM_TYPE && s->func_type_of) {
        if (report) en_error(ck->diags, n->loc, "%s", ck_fptr_type_refusal(ck, s, full));
        return NULL;
    }
    if (s && s->kind == SYM_TYPE && s->is_ref && s->type && s->type->kind == IR_T_PTR) return s->type->elem;
    if (s && s->kind == SYM_TYPE) return s->type;
    if (!s || n->count > 1) {
        ir_type *t = ck_named_builtin_type(ck->m, full);
        if (t) return t;
    }
    if (report) {
        const char *why = ck_unsupported_type(id);
        if (why) en_error(ck->diags, n->loc, "%s", why);
        else if (s) en_error(ck->diags, n->loc, "'%s' is not a type", full);
        else en_error(ck->diags, n->loc, "unknown type name '%s'", full);
    }
    return NULL;
}

static ir_type *type_rec(checker *ck, const ast_type *t, int depth) {
    if (!t || depth > 64) return NULL;
    switch (t->kind) {
    case AST_TYPE_ERROR: return NULL;
    case AST_TYPE_NAME: return ck_type_name_lookup(ck, &t->name, true);
    case AST_TYPE_POINTER: {
        ir_type *base = type_rec(ck, t->base, depth + 1);
        if (!base || !t->base) return NULL;
        return ir_type_ptr(ck->m, base, space_of(t->base->space), (t->base->quals & AST_Q_CONST) != 0);
    }
    case AST_TYPE_REF: {
        ir_type *base = type_rec(ck, t->base, depth + 1);
        if (!base || !t->base) return NULL;
        return ir_type_ptr(ck->m, base, space_of(t->base->space), (t->base->quals & AST_Q_CONST) != 0);
    }
    case AST_TYPE_DECLTYPE: return ck_decltype(ck, t);
    case AST_TYPE_ARRAY: {
        ir_type *base = type_rec(ck, t->base, depth + 1);
        if (!base) return NULL;
        if (!t->dim) {
            en_error(ck->diags, t->loc, "arrays need a size in enigma");
            return NULL;
        }
        int64_t n;
        if (!ck_const_expr(ck, t->dim, &n, "an array size")) return NULL;
        if (n <= 0) {
            en_error(ck->diags, t->dim->loc, "array size must be positive, got %lld", (long long)n);
            return NULL;
        }
        if ((uint64_t)n * (base->size ? base->size : 1) > (1u << 26)) {
            en_error(ck->diags, t->dim->loc, "array of %lld elements is too large", (long long)n);
            return NULL;
        }
        if (base->kind == IR_T_VOID) {
            en_error(ck->diags, t->loc, "array of void");
            return NULL;
        }
        return ir_type_array(ck->m, base, (uint32_t)n);
    }
    }
    return NULL;
}

ir_type *ck_type(checker *ck, const ast_type *t) {
    if (t && t->kind == AST_TYPE_REF) {
        en_error(ck->diags, t->loc, "a reference type cannot be used here");
        return NULL;
    }
    return type_rec(ck, t, 0);
}

/* a template parameter bound to a reference type, named alone (`args_t args`) */
static ck_sym *ref_type_param(checker *ck, const ast_type *t) {
    if (!t || t->kind != AST_TYPE_NAME || t->name.count != 1 || t->name.parts[0].has_targs) return NULL;
    ck_sym *s = ck_lookup(ck, &t->name);
    return s && s->kind == SYM_TYPE && s->is_ref && s->type && s->type->kind == IR_T_PTR ? s : NULL;
}

ir_type *ck_decl_type(checker *ck, const ast_type *t, bool *is_ref, bool is_param) {
    (void)is_param;
    ck_sym *rs = ref_type_param(ck, t);
    if (rs) {
        *is_ref = true;
        return rs->type;
    }
    *is_ref = t && t->kind == AST_TYPE_REF;
    return type_rec(ck, t, 0);
}

/* the address space and const written for a variable: on the innermost name under arrays */
static const ast_type *decl_base(const ast_type *t) {
    while (t && t->kind == AST_TYPE_ARRAY && t->base) t = t->base;
    return t;
}

static bool is_auto(const ast_type *t) {
    return t && t->kind == AST_TYPE_NAME && t->name.count == 1 && t->name.parts &&
           t->name.parts[0].ident && en_streq(t->name.parts[0].ident, "auto");
}

/* ---- initializers ----------------------------------------------------------------------- */
#define MAX_INIT_BYTES (1u << 20)
#define MAX_THREAD_VAR_BYTES (64u << 10)

ir_expr *ck_initializer(checker *ck, ir_type *t, const ast_expr *init, en_loc loc) {
    if (!init || !t) return NULL;
    if (t->size > MAX_INIT_BYTES && init->kind == AST_EXPR_INIT_LIST) {
        en_error(ck->diags, init->loc, "an initializer of %u bytes is too large for enigma (at most %u)",
                 t->size, MAX_INIT_BYTES);
        return NULL;
    }
    if (init->kind != AST_EXPR_INIT_LIST) return ck_expr_to(ck, init, t);
    int n = init->args.count;
    for (int i = 0; i < n; i++)
        if (init->args.items[i]->kind == AST_EXPR_DESIGNATOR) return ck_designated_array(ck, t, init, loc);
    if (t->kind == IR_T_ARRAY || t->kind == IR_T_STRUCT) {
        int want = t->kind == IR_T_ARRAY ? (int)t->count : t->field_count;
        if (n > want) {
            en_error(ck->diags, init->loc, "too many initializers for '%s' (expected %d, have %d)",
                     ck_type_name(ck, t), want, n);
            return NULL;
        }
        if (want > (1 << 20)) {
            en_error(ck->diags, init->loc, "initializer of '%s' is too large for enigma", ck_type_name(ck, t));
            return NULL;
        }
        ir_expr *a = ir_expr_new(ck->m, IR_E_AGGREGATE, t, init->loc, want);
        bool ok = true;
        for (int i = 0; i < want; i++) {
            ir_type *ft = t->kind == IR_T_ARRAY ? t->elem : t->fields[i].type;
            if (i < n) {
                a->args[i] = ck_initializer(ck, ft, init->args.items[i], loc);
            } else {
                ast_expr empty = {.kind = AST_EXPR_INIT_LIST, .loc = init->loc};
                a->args[i] = ck_initializer(ck, ft, &empty, loc);
            }
            if (!a->args[i]) ok = false;
        }
        return ok ? a : NULL;
    }
    if (t->kind == IR_T_VEC) {
        ir_expr *lanes[4];
        int count = 0;
        for (int i = 0; i < n; i++) {
            ir_expr *v = ck_expr(ck, init->args.items[i]);
            if (!v) return NULL;
            if (v->type->kind == IR_T_VEC) {
                en_error(ck->diags, init->args.items[i]->loc,
                         "a vector in a braced vector initializer: write %s(...) to combine vectors",
                         ck_type_name(ck, t));
                return NULL;
            }
            if (count < 4) lanes[count] = ck_implicit(ck, v, t->elem, init->args.items[i]->loc);
            if (count < 4 && !lanes[count]) return NULL;
            count++;
        }
        if (count > (int)t->count) {
            en_error(ck->diags, init->loc, "too many elements in vector initialization (expected %u elements, have %d)",
                     t->count, count);
            return NULL;
        }
        ir_expr *v = ir_expr_new(ck->m, IR_E_VECTOR, t, init->loc, (int)t->count);
        for (int i = 0; i < (int)t->count; i++)
            v->args[i] = i < count ? lanes[i] : ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, init->loc), t->elem, init->loc);
        return v;
    }
    if (ir_is_scalar(t)) {
        if (n == 0) return ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, init->loc), t, init->loc);
        if (n == 1) return ck_initializer(ck, t, init->args.items[0], loc);
        en_error(ck->diags, init->loc, "too many initializers for '%s'", ck_type_name(ck, t));
        return NULL;
    }
    if (n == 1) return ck_initializer(ck, t, init->args.items[0], loc);
    en_error(ck->diags, init->loc, "'%s' cannot be initialized with a list", ck_type_name(ck, t));
    return NULL;
}

/* ---- variables ------------------------------------------------------------------------------- */
/* {0}, {}, {0, 0}, 0: an initializer of zeros alone */
static bool all_zero_initializer(const ast_expr *e, int depth) {
    if (!e || depth > 16) return false;
    if (e->kind == AST_EXPR_INT || e->kind == AST_EXPR_FLOAT) return e->ival == 0 && e->fval == 0;
    if (e->kind != AST_EXPR_INIT_LIST) return false;
    for (int i = 0; i < e->args.count; i++)
        if (!all_zero_initializer(e->args.items[i], depth + 1)) return false;
    return true;
}

static void threadgroup_var(checker *ck, const ast_decl *d, ir_type *t) {
    if (!ck->fn || !ck->is_kernel) {
        en_error(ck->diags, d->loc, "threadgroup variable '%s' must be declared in a kernel function", d->name);
        return;
    }
    /* inside an if, switch or loop of the kernel it is still one variable of the threadgroup
     * (it has static storage, as at the kernel's top): Apple's compiler takes MLX's sort.h,
     * which declares its scratch arrays in `if (ARG_SORT) { threadgroup ... }` */
    if (d->init && !all_zero_initializer(d->init, 0)) {
        en_error(ck->diags, d->loc, "threadgroup variable '%s' cannot have an initializer", d->name);
        return;
    }
    if (d->init) /* MLX writes `= {0}`, which Apple's compiler accepts, and zeroes the memory itself */
        en_warning(ck->diags, d->init->loc, "initializer of threadgroup variable '%s' ignored: threadgroup "
                   "memory is not initialized in Metal; write it in the kernel", d->name);
    ir_var *v = ir_var_new(ck->m, ck->fn, d->name, t, d->loc);
    v->storage = IR_VAR_THREADGROUP;
    EN_PUSH(ck->m->arena, ck->fn->threadgroup_vars, v);
    ck_sym *s = ck_declare(ck, SYM_VAR, d->name, d->loc);
    s->var = v;
}

/* a variable's type; `T a[] = {...}` takes its length from the initializer */
static ir_type *var_type(checker *ck, const ast_decl *d, bool *is_ref) {
    const ast_type *t = d->type;
    if (t && t->kind == AST_TYPE_ARRAY && !t->dim && d->init && d->init->kind == AST_EXPR_INIT_LIST &&
        d->init_style == AST_INIT_ASSIGN) {
        *is_ref = false;
        ir_type *elem = type_rec(ck, t->base, 1);
        if (!elem) return NULL;
        int n = d->init->args.count;
        if (n <= 0) {
            en_error(ck->diags, d->loc, "array '%s' of unknown size needs a non-empty initializer", d->name);
            return NULL;
        }
        return ir_type_array(ck->m, elem, (uint32_t)n);
    }
    return ck_decl_type(ck, t, is_ref, false);
}

static void program_var(checker *ck, const ast_decl *d) {
    for (int i = 0; i < d->attrs.count; i++) {
        const char *n = d->attrs.items[i].name ? d->attrs.items[i].name : "";
        if (en_streq(n, "function_constant")) {
            const ast_type *fb = decl_base(d->type);
            if (!fb || fb->space != AST_AS_CONSTANT) {
                en_error(ck->diags, d->loc, "function constant '%s' must be declared in the constant address space",
                         d->name);
                return;
            }
            bool is_ref = false;
            ir_type *t = var_type(ck, d, &is_ref);
            if (t) ck_function_constant_decl(ck, d, &d->attrs.items[i], is_ref ? NULL : t);
            return;
        }
    }
    const ast_type *b = decl_base(d->type);
    bool constexpr_ = d->specs & AST_SPEC_CONSTEXPR;
    if (!constexpr_ && (!b || b->space != AST_AS_CONSTANT)) {
        if (b && b->space == AST_AS_THREADGROUP)
            en_error(ck->diags, d->loc, "threadgroup variable '%s' must be declared in a kernel function", d->name);
        else if (b && b->kind == AST_TYPE_ERROR)
            return;
        else
            en_error(ck->diags, d->loc,
                     "program-scope variable '%s' must be declared in the constant address space",
                     d->name ? d->name : "?");
        return;
    }
    bool is_ref = false;
    ir_type *t = is_auto(d->type) ? NULL : var_type(ck, d, &is_ref);
    if (!is_auto(d->type) && !t) return;
    if (is_ref) {
        en_error(ck->diags, d->loc, "program-scope references are not supported by enigma ('%s')", d->name);
        return;
    }
    /* (the parser keeps S<6, 3, 8>::x as a specialization's name, S::x as a qualified one) */
    const ast_name *qualified = d->qual_name.count > 1 ? &d->qual_name : d->spec_name.count > 1 ? &d->spec_name : NULL;
    if (!d->init && qualified) {
        /* `constant constexpr const float S<6, 3, 8>::wt_transform[8][8];`: the definition C++14
         * wanted beside a static constexpr member initialised in its class; the class has it */
        ast_name owner_name = *qualified;
        owner_name.count--;
        ir_type *owner = ck_type_name_lookup(ck, &owner_name, false);
        if (owner && owner->name && ck_lookup_str(ck, en_fmt(ck->a, "%s::%s", owner->name, d->name))) return;
        en_error(ck->diags, d->loc, "'%s' is no static member declared in its class", ast_name_str(ck->a, qualified));
        return;
    }
    if (!d->init) {
        en_error(ck->diags, d->loc, "constant '%s' needs an initializer", d->name);
        return;
    }
    ir_expr *init;
    if (t && t->kind == IR_T_STRUCT && t->field_count == 0 && ck_has_constructor(ck, t)) {
        /* an object with no state, built by a constructor (MLX's `constant mlx::os_log
         * logger("mlx", "binary_ops");`): no constructor can give it a value to keep */
        ast_expr empty = {.kind = AST_EXPR_INIT_LIST, .loc = d->init->loc};
        init = ck_initializer(ck, t, &empty, d->loc);
    } else if (t) {
        init = ck_initializer(ck, t, d->init, d->loc);
    } else {
        init = ck_expr(ck, d->init);
        t = init ? init->type : NULL;
    }
    if (!init) return;
    ir_expr *folded = ck_fold(ck, init);
    if (!folded && init->kind == IR_E_VAR && init->var->storage == IR_VAR_CONSTANT && init->var->init)
        folded = init->var->init; /* another program-scope constant (a struct's aggregate) */
    if (!folded) {
        en_error(ck->diags, d->init->loc, "the initializer of '%s' must be a constant expression", d->name);
        return;
    }
    ir_var *v = ir_var_new(ck->m, NULL, ck_qualify(ck, d->name), t, d->loc);
    v->storage = IR_VAR_CONSTANT;
    v->init = folded;
    EN_PUSH(ck->m->arena, ck->m->globals, v);
    ck_sym *s = ck_declare(ck, ir_is_scalar(t) ? SYM_CONST : SYM_VAR, d->name, d->loc);
    s->var = v;
    s->value = folded;
}

/* `thread auto& r = place;` and `thread const auto& r = value;`: a reference whose type is
 * the initializer's (MLX steel: `thread auto& accum = Ctile.frag_at(i, j);`) */
static void auto_reference(checker *ck, const ast_decl *d) {
    bool is_const = d->type->base && (d->type->base->quals & AST_Q_CONST);
    if (!d->init || d->init->kind == AST_EXPR_INIT_LIST) {
        en_error(ck->diags, d->loc, "reference '%s' must be bound to a variable", d->name);
        return;
    }
    ir_expr *place = ck_expr(ck, d->init);
    if (!place) return;
    ir_expr *addr;
    if (ir_is_place(place) && place->kind != IR_E_SWIZZLE) {
        addr = ck_addr_of(ck, place, d->init->loc);
    } else if (is_const) {
        ir_var *tmp = ck_temp_init(ck, place->type, place, d->loc);
        addr = ck_addr_of(ck, ir_var_ref(ck->m, tmp, d->loc), d->loc);
    } else {
        en_error(ck->diags, d->init->loc, "non-const reference '%s' must be bound to a variable", d->name);
        return;
    }
    if (is_const && !addr->type->is_const)
        addr = ck_implicit(ck, addr, ir_type_ptr(ck->m, addr->type->elem, addr->type->space, true), d->loc);
    ir_var *v = ir_var_new(ck->m, ck->fn, d->name, addr->type, d->loc);
    v->is_reference = true;
    ck_emit(ck, ir_decl(ck->m, ck->fn, v, addr, d->loc));
    ck_sym *s = ck_declare(ck, SYM_VAR, d->name, d->loc);
    s->var = v;
    s->is_ref = true;
}

static void local_var(checker *ck, const ast_decl *d) {
    if (d->type && d->type->kind == AST_TYPE_REF && is_auto(d->type->base)) {
        auto_reference(ck, d);
        return;
    }
    if (d->type && d->type->kind == AST_TYPE_POINTER && is_auto(d->type->base)) {
        /* `const constant auto* p = q;`: the pointer type of the initializer */
        ir_expr *init = d->init && d->init->kind != AST_EXPR_INIT_LIST ? ck_expr(ck, d->init) : NULL;
        if (!init) {
            if (!d->init) en_error(ck->diags, d->loc, "'auto' variable '%s' needs an initializer", d->name);
            return;
        }
        if (init->type->kind != IR_T_PTR) {
            en_error(ck->diags, d->init->loc, "'%s' is declared 'auto*' but its initializer is not a pointer ('%s')",
                     d->name, ck_type_name(ck, init->type));
            return;
        }
        ir_type *t = init->type;
        if (d->type->base->quals & AST_Q_CONST) t = ir_type_ptr(ck->m, t->elem, t->space, true);
        init = ck_implicit(ck, init, t, d->loc);
        if (!init) return;
        ir_var *v = ir_var_new(ck->m, ck->fn, d->name, t, d->loc);
        ck_emit(ck, ir_decl(ck->m, ck->fn, v, init, d->loc));
        ck_sym *s = ck_declare(ck, SYM_VAR, d->name, d->loc);
        s->var = v;
        return;
    }
    const ast_type *b = decl_base(d->type);
    ir_type *t = NULL;
    bool is_ref = false;
    if (!is_auto(d->type)) {
        t = var_type(ck, d, &is_ref);
        if (!t) {
            if (d->init) ck_expr(ck, d->init->kind == AST_EXPR_INIT_LIST ? NULL : d->init);
            return;
        }
    }
    if (t && t->kind == IR_T_VOID) {
        en_error(ck->diags, d->loc, "variable '%s' has type void", d->name);
        return;
    }
    if (b && b->space == AST_AS_THREADGROUP && !is_ref && (!t || t->kind != IR_T_PTR)) {
        if (!t) {
            en_error(ck->diags, d->loc, "threadgroup variable '%s' needs a type", d->name);
            return;
        }
        threadgroup_var(ck, d, t);
        return;
    }
    if (b && (b->space == AST_AS_DEVICE || b->space == AST_AS_CONSTANT) && !is_ref &&
        (!t || t->kind != IR_T_PTR)) {
        if (b->space == AST_AS_CONSTANT && (d->specs & (AST_SPEC_STATIC | AST_SPEC_CONSTEXPR))) {
            program_var(ck, d);
            return;
        }
        en_error(ck->diags, d->loc, "local variable '%s' cannot be in the %s address space",
                 d->name, b->space == AST_AS_DEVICE ? "device" : "constant");
        return;
    }
    bool is_const = (d->specs & AST_SPEC_CONSTEXPR) || (b && (b->quals & AST_Q_CONST) && !is_ref &&
                                                        (!t || t->kind != IR_T_PTR));
    if (is_ref) {
        /* T& r = place;  r is a pointer to it */
        if (!d->init || d->init->kind == AST_EXPR_INIT_LIST) {
            en_error(ck->diags, d->loc, "reference '%s' must be bound to a variable", d->name);
            return;
        }
        ir_expr *place = ck_expr(ck, d->init);
        if (!place) return;
        ir_expr *addr;
        if (ir_is_place(place) && place->kind != IR_E_SWIZZLE) {
            addr = ck_addr_of(ck, place, d->init->loc);
        } else if (t->is_const) {
            ir_expr *v = ck_implicit(ck, place, t->elem, d->init->loc);
            if (!v) return;
            ir_var *tmp = ck_temp_init(ck, t->elem, v, d->loc);
            addr = ck_addr_of(ck, ir_var_ref(ck->m, tmp, d->loc), d->loc);
        } else {
            en_error(ck->diags, d->init->loc, "non-const reference '%s' must be bound to a variable", d->name);
            return;
        }
        if (addr->type->elem != t->elem) {
            en_error(ck->diags, d->init->loc, "cannot bind '%s' to a reference of type '%s'",
                     ck_type_name(ck, addr->type->elem), ck_type_name(ck, t->elem));
            return;
        }
        if (addr->type->space != t->space && b && b->space != AST_AS_NONE) {
            en_error(ck->diags, d->init->loc, "cannot bind a %s reference to %s memory",
                     ir_space_name(t->space), ir_space_name(addr->type->space));
            return;
        }
        if (addr->type->is_const && !t->is_const) {
            en_error(ck->diags, d->init->loc, "binding a non-const reference '%s' to read-only memory", d->name);
            return;
        }
        ir_var *v = ir_var_new(ck->m, ck->fn, d->name, addr->type, d->loc);
        v->is_reference = true;
        ck_emit(ck, ir_decl(ck->m, ck->fn, v, addr, d->loc));
        ck_sym *s = ck_declare(ck, SYM_VAR, d->name, d->loc);
        s->var = v;
        s->is_ref = true;
        return;
    }
    ir_expr *init = NULL;
    if (t && t->kind == IR_T_STRUCT && ck_has_constructor(ck, t)) {
        /* S x; S x{a}; S x = v; — built by a constructor (S x(a) is a construction below) */
        const ast_exprs *list = NULL;
        ast_exprs one = {0};
        ast_expr *single = NULL;
        if (!d->init) list = &one;
        else if (d->init->kind == AST_EXPR_INIT_LIST && d->init_style != AST_INIT_PAREN) list = &d->init->args;
        else if (d->init->kind != AST_EXPR_INIT_LIST) single = d->init;
        if (single) {
            ir_expr *v = ck_expr(ck, single);
            if (v && v->type != t) {
                en_loc l = single->loc;
                init = ck_construct(ck, t, &v, &l, 1, d->loc);
            } else {
                init = v;
            }
            list = NULL;
            if (!init) return;
        } else if (list) {
            int n = list->count;
            ir_expr **args = en_alloc(ck->a, sizeof(ir_expr *) * (size_t)(n + 1));
            en_loc *locs = en_alloc(ck->a, sizeof(en_loc) * (size_t)(n + 1));
            for (int i = 0; i < n; i++) {
                args[i] = ck_expr(ck, list->items[i]);
                locs[i] = list->items[i]->loc;
                if (!args[i]) return;
            }
            init = ck_construct(ck, t, args, locs, n, d->loc);
            if (!init) return;
        }
    }
    if (init) {
        /* built above */
    } else if (d->init) {
        if (d->init_style == AST_INIT_PAREN && t && d->init->kind == AST_EXPR_INIT_LIST) {
            /* T x(a, b): a construction */
            ast_expr c = *d->init;
            c.kind = AST_EXPR_CONSTRUCT;
            c.type = d->type;
            c.brace = false;
            init = ck_expr(ck, &c);
        } else if (t) {
            init = ck_initializer(ck, t, d->init, d->loc);
        } else {
            init = ck_expr(ck, d->init);
            if (init && init->type->kind == IR_T_VOID) {
                en_error(ck->diags, d->loc, "variable '%s' cannot be void", d->name);
                return;
            }
            if (init && init->type->kind == IR_T_VEC && init->type->packed)
                init = ck_convert(ck, init, ir_type_vec(ck->m, init->type->elem, init->type->count, false), d->loc);
            t = init ? init->type : NULL;
        }
        if (!init) {
            /* declare anyway so later uses do not cascade */
            if (!t) return;
        }
    } else if (!t) {
        en_error(ck->diags, d->loc, "'auto' variable '%s' needs an initializer", d->name);
        return;
    } else if (is_const && !(d->specs & AST_SPEC_CONSTEXPR)) {
        en_error(ck->diags, d->loc, "const variable '%s' needs an initializer", d->name);
    }
    if (t->kind == IR_T_ATOMIC) {
        en_error(ck->diags, d->loc, "atomic variable '%s' must be in device or threadgroup memory", d->name);
        return;
    }
    if (t->size > MAX_THREAD_VAR_BYTES) {
        /* every thread has its own copy, and a CPU SIMD group keeps 32 of them at once */
        en_error(ck->diags, d->loc, "local variable '%s' of %u bytes is too large (at most %u bytes per thread)",
                 d->name, t->size, MAX_THREAD_VAR_BYTES);
        return;
    }
    if (is_const && init) {
        ir_expr *f = ck_fold(ck, init);
        if (f && ir_is_scalar(t)) {
            ck_sym *s = ck_declare(ck, SYM_CONST, d->name, d->loc);
            s->value = f;
            return;
        }
        if (!f && (d->specs & AST_SPEC_CONSTEXPR)) {
            en_error(ck->diags, d->init->loc, "constexpr variable '%s' needs a constant initializer", d->name);
            return;
        }
    }
    if (t->kind == IR_T_STRUCT && t->size == 0) {
        en_error(ck->diags, d->loc, "variable '%s' has incomplete type '%s'%s", d->name, ck_type_name(ck, t),
                 strncmp(t->name, "simdgroup_matrix<", 17) == 0 ? " (simdgroup matrices hold float, half or bfloat)" : "");
        return;
    }
    ir_var *v = ir_var_new(ck->m, ck->fn, d->name, t, d->loc);
    ck_emit(ck, ir_decl(ck->m, ck->fn, v, init, d->loc));
    /* `S x;` of a struct without constructors: its default member initializers, its members'
     * constructors */
    if (!init && t->kind == IR_T_STRUCT && !ck_has_constructor(ck, t))
        ck_default_init_members(ck, t, ir_var_ref(ck->m, v, d->loc), NULL, d->loc);
    v->declared_const = is_const;
    ck_sym *s = ck_declare(ck, SYM_VAR, d->name, d->loc);
    s->var = v;
}

/* ---- structs, enums, aliases ------------------------------------------------------------------ */
static ck_sym *find_local(ck_scope *sc, const char *name) { return ck_find_in_scope(sc, name); }

static ck_inst *method_inst(checker *ck, ck_func *cf, ir_space space);
static void method_body(checker *ck, ck_func *cf, ck_inst *inst);
static void function_body(checker *ck, const ast_decl *d, ir_func *fn, ck_inst *sig, bool is_kernel, ck_scope *outer,
                          const char *ns);

/* a member function defined in its struct: checked when called, per address space of
 * the object (Metal's `this` is a pointer into the object's address space) */
static void member_function(checker *ck, ir_type *owner, const char *sname, const ast_decl *m) {
    const char *mname = m->name ? m->name : "?";
    /* static member functions, templates too, are functions named after the struct */
    if ((m->specs & AST_SPEC_STATIC) && ck_static_member(ck, owner, sname, m)) return;
    /* declared here, defined outside the struct (`R S::f(...) {...}`, member_definition):
     * its definition arrives later */
    ck_func *cf = en_alloc(ck->a, sizeof *cf);
    cf->d = m;
    cf->qname = en_fmt(ck->a, "%s::%s", owner->name, mname);
    /* the struct's static members are found unqualified from its member functions */
    cf->ns = strchr(owner->name, '<') ? owner->name : ck_qualify(ck, sname);
    cf->owner = owner;
    cf->definition = m->body ? m : NULL;
    cf->outer = ck->scope;
    /* `template <> R f(complex64_t)` in a struct specializes the member template f for those
     * types; as an ordinary overload beside it, it is chosen for exactly those arguments
     * (a non-template wins a tie), which is what the specialization means */
    cf->is_template = m->is_template && m->tparams.count > 0;
    EN_PUSH(ck->a, ck->methods, cf);
}

/* member function template cf instantiated for a call with these arguments (deduced), or
 * NULL when it does not fit (quietly, unless *hard_error) */
static ck_func *member_template_inst(checker *ck, ck_func *cf, const ast_name_part *explicit_args, ir_expr **args,
                                     int n, bool *hard_error) {
    return ck_member_template_inst(ck, cf, explicit_args, NULL, args, n, hard_error);
}

ck_func *ck_member_template_inst(checker *ck, ck_func *cf, const ast_name_part *explicit_args, ir_type *first,
                                 ir_expr **args, int n, bool *hard_error) {
    int nb = cf->d->tparams.count;
    ck_binding *b = en_alloc(ck->a, sizeof(ck_binding) * (size_t)(nb + 1));
    if (first && nb > 0 && cf->d->tparams.items[0].is_type) { /* `template <typename U> operator U()`: U is the target */
        b[0].set = b[0].given = true;
        b[0].value.type = first;
    }
    ck_fnctx saved = ck_save_fn(ck);
    ck_scope *caller = ck->scope, *saved_targ_scope = ck->targ_scope;
    ck->scope = cf->outer ? cf->outer : ck->globals;
    ck->ns = cf->ns;
    ck->targ_scope = caller;
    ck->defaults_ns = NULL; /* (ck->ns is the member's own here) */
    bool ok = ck_bind_targs(ck, cf->d, cf->qname, explicit_args, args, n, b, hard_error);
    ck->targ_scope = saved_targ_scope;
    ck_restore_fn(ck, saved);
    if (!ok) return NULL;
    const char *name = ck_binding_name(ck, cf->qname, b, nb);
    for (int i = 0; i < cf->member_insts.count; i++)
        if (en_streq(cf->member_insts.items[i]->qname, name)) return cf->member_insts.items[i];
    ck_func *inst = en_alloc(ck->a, sizeof *inst);
    *inst = *cf;
    memset(&inst->insts, 0, sizeof inst->insts);
    memset(&inst->member_insts, 0, sizeof inst->member_insts);
    inst->is_template = false;
    inst->from_template = true;
    inst->qname = name;
    inst->outer = ck_template_scope_in(ck, cf->d, b, cf->outer ? cf->outer : ck->globals);
    EN_PUSH(ck->a, cf->member_insts, inst);
    return inst;
}

static void struct_decl(checker *ck, const ast_decl *d) {
    if (d->is_template) {
        ck_class_template_decl(ck, d);
        return;
    }
    const char *name = d->name ? d->name : "<anonymous>";
    /* nested structs and unions first, so that their IR types precede this one's (the
     * backends define structs in the module's order) */
    if (d->has_body)
        for (int i = 0; i < d->members.count; i++)
            if (d->members.items[i] && d->members.items[i]->kind == AST_DECL_STRUCT && d->members.items[i]->has_body)
                struct_decl(ck, d->members.items[i]);
    ast_name n = {0};
    ast_name_part part = {.loc = d->loc, .ident = name};
    n.loc = d->loc;
    n.parts = &part;
    n.count = 1;
    ck_sym *s = d->name ? ck_lookup(ck, &n) : NULL;
    ir_type *t = NULL;
    if (s && s->kind == SYM_TYPE && s->type && s->type->kind == IR_T_STRUCT &&
        (ck->scope != ck->globals || en_streq(s->name, ck_qualify(ck, name))) && s->type->field_count == 0 &&
        s->type->size == 0) {
        t = s->type; /* completing a forward declaration */
    } else {
        if (s && s->kind == SYM_TYPE && s->type && s->type->kind == IR_T_STRUCT && d->has_body &&
            ((ck->scope == ck->globals && en_streq(s->name, ck_qualify(ck, name))) ||
             (ck->scope != ck->globals && find_local(ck->scope, name) == s))) {
            en_error(ck->diags, d->loc, "redefinition of struct '%s'", name);
            return;
        }
        t = ir_type_struct(ck->m, ck_qualify(ck, name));
        if (d->name) {
            s = ck_declare(ck, SYM_TYPE, name, d->loc);
            s->type = t;
        }
    }
    if (!d->has_body) return;
    ck_struct_fill(ck, d, t, name);
}

/* the members of struct d into t (named `name` in diagnostics): fields and their layout,
 * nested and anonymous structs and unions, member functions (checked for thread memory
 * here, per other address space when called) */
void ck_struct_fill(checker *ck, const ast_decl *d, ir_type *t, const char *name) {
    EN_VEC(ir_field) fields = {0};
    ck_struct_bases(ck, d, t, &fields);
    /* static member function bodies see every member, those declared after them too (C++'s
     * complete-class context): they are checked at the end */
    bool was_deferring = ck->deferring_bodies;
    int first_deferred = ck->deferred_bodies.count;
    ck->deferring_bodies = true;
    for (int i = 0; i < d->members.count; i++) {
        const ast_decl *m = d->members.items[i];
        if (!m) continue;
        if (m->kind == AST_DECL_ERROR) continue;
        if (m->kind == AST_DECL_FUNC) {
            member_function(ck, t, name, m);
            continue;
        }
        if (m->kind == AST_DECL_STRUCT && m->has_body) {
            /* a nested struct or union (declared above); unnamed and without a declarator
             * using it, it is an anonymous member whose own members are reached directly
             * (class.c) */
            const ast_decl *next = i + 1 < d->members.count ? d->members.items[i + 1] : NULL;
            bool used = next && next->kind == AST_DECL_VAR && next->type && next->type->kind == AST_TYPE_NAME &&
                        next->type->name.count == 1 && en_streq(ast_name_last(&next->type->name), m->name);
            if (!used && m->name && strncmp(m->name, "__anonymous_", 12) == 0) {
                ck_sym *ms = ck_lookup_str(ck, ck_qualify(ck, m->name));
                if (ms && ms->kind == SYM_TYPE && ms->type && ms->type->size)
                    EN_PUSH(ck->a, fields, ((ir_field){.name = en_fmt(ck->a, "__anon%d", fields.count), .type = ms->type}));
            }
            continue;
        }
        if ((m->kind == AST_DECL_TYPEDEF || m->kind == AST_DECL_ENUM) && m->name && strchr(t->name, '<') &&
            ck->scope != ck->globals && ck_find_in_scope(ck->scope, m->name))
            continue; /* a class template's member type, declared before its nested structs */
        if ((m->kind == AST_DECL_TYPEDEF || m->kind == AST_DECL_ENUM) && ck_static_member(ck, t, name, m)) continue;
        if (m->kind == AST_DECL_STATIC_ASSERT) { /* in the struct's scope: a template's parameters are seen */
            ck_decl(ck, m, false);
            continue;
        }
        if (m->kind != AST_DECL_VAR) {
            en_error(ck->diags, m->loc, "nested declarations in structs are not supported by enigma");
            continue;
        }
        if (m->bit_width) {
            en_error(ck->diags, m->loc, "bit-fields are not supported by enigma ('%s')", m->name ? m->name : "?");
            continue;
        }
        if ((m->specs & (AST_SPEC_STATIC | AST_SPEC_CONSTEXPR)) && m->name && strchr(t->name, '<') &&
            ck->scope != ck->globals && ck_find_in_scope(ck->scope, m->name))
            continue; /* a class template's static constant, declared before its nested structs */
        if ((m->specs & (AST_SPEC_STATIC | AST_SPEC_CONSTEXPR)) && ck_static_member(ck, t, name, m)) continue;
        if (m->specs & (AST_SPEC_STATIC | AST_SPEC_CONSTEXPR)) {
            en_error(ck->diags, m->loc, "static members of class templates are not supported by enigma ('%s')",
                     m->name ? m->name : "?");
            continue;
        }
        bool is_ref;
        ir_type *ft = ck_decl_type(ck, m->type, &is_ref, false);
        if (!ft) continue;
        if (is_ref) {
            en_error(ck->diags, m->loc, "reference members are not supported by enigma ('%s')", m->name ? m->name : "?");
            continue;
        }
        if (ft == t || ft->kind == IR_T_VOID || (ft->kind == IR_T_STRUCT && ft->size == 0 && ft->field_count == 0)) {
            en_error(ck->diags, m->loc, "field '%s' has incomplete type '%s'", m->name ? m->name : "?",
                     ck_type_name(ck, ft));
            continue;
        }
        bool dup = false;
        for (int k = 0; k < fields.count; k++)
            if (m->name && en_streq(fields.items[k].name, m->name)) dup = true;
        if (dup) {
            en_error(ck->diags, m->loc, "duplicate member '%s' in '%s'", m->name, name);
            continue;
        }
        if (m->init) /* applied by constructors (class.c), or where an S without one is declared */
            EN_PUSH(ck->a, ck->member_defaults,
                    ((ck_member_default){.owner = t, .field = fields.count, .init = m->init, .scope = ck->scope,
                                         .ns = ck->ns}));
        EN_PUSH(ck->a, fields, ((ir_field){.name = m->name ? m->name : "", .type = ft}));
    }
    if (d->is_union) {
        ck_union_layout(ck, t, fields.items, fields.count);
    } else {
        t->fields = fields.items;
        t->field_count = fields.count;
        ir_struct_layout(t);
    }
    ck_struct_after_fields(ck, t);
    if (t->size == 0) t->size = t->align = 1; /* an empty struct or union still occupies a byte */
    /* member function bodies are checked once the fields are known, for objects in
     * thread memory (other address spaces get their own copy when called) */
    ck->deferring_bodies = was_deferring;
    for (int i = first_deferred; i < ck->deferred_bodies.count; i++) {
        ck_func *cf = ck->deferred_bodies.items[i];
        /* a class template instance's static member function is an instantiation too: its
         * discarded `if constexpr` branches are not checked (MLX's CumMax<bool>::combine) */
        bool was_in_template = ck->in_template;
        ck->in_template = was_in_template || (cf->ns && strchr(cf->ns, '<'));
        function_body(ck, cf->definition, cf->sig.fn, &cf->sig, false, cf->outer ? cf->outer : ck->globals, cf->ns);
        ck->in_template = was_in_template;
    }
    ck->deferred_bodies.count = first_deferred;
    /* a class template instance's member functions are instantiated where they are used
     * (C++ [temp.inst]): CumSum<complex64_t>::simd_scan_impl, which calls a SIMD prefix sum
     * no complex type has, exists in MLX's scan.metal but is never called */
    if (strchr(t->name, '<')) return;
    for (int i = 0; i < ck->methods.count; i++) {
        ck_func *cf = ck->methods.items[i];
        if (cf->owner != t || cf->is_template || !cf->definition) continue; /* templates: per call */
        ck_inst *inst = method_inst(ck, cf, IR_SPACE_THREAD);
        if (inst) method_body(ck, cf, inst);
    }
}

static void enum_decl(checker *ck, const ast_decl *d) {
    ir_type *u = d->type ? ck_type(ck, d->type) : ck_t(ck, IR_T_I32);
    if (!u) return;
    if (!ir_is_integer(u) && u->kind != IR_T_BOOL) {
        en_error(ck->diags, d->loc, "the underlying type of an enum must be an integer type, not '%s'", ck_type_name(ck, u));
        return;
    }
    if (d->name) {
        ck_sym *s = ck_declare(ck, SYM_TYPE, d->name, d->loc);
        s->type = u;
    }
    int64_t next = 0;
    for (int i = 0; i < d->enumerators.count; i++) {
        const ast_enumerator *en = &d->enumerators.items[i];
        if (!en->name) continue;
        int64_t v = next;
        if (en->value && !ck_const_expr(ck, en->value, &v, "an enumerator value")) v = next;
        ir_expr *c = ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I64), v, en->loc), u, en->loc);
        if (d->name) {
            ck_sym *s = ck_declare(ck, SYM_CONST, en_fmt(ck->a, "%s::%s", d->name, en->name), en->loc);
            s->value = c;
        }
        if (!d->is_scoped || !d->name) {
            ck_sym *s = ck_declare(ck, SYM_CONST, en->name, en->loc);
            s->value = c;
        }
        next = v + 1;
    }
}

static void typedef_decl(checker *ck, const ast_decl *d) {
    if (!d->name) return;
    /* an alias template of a function-pointer type names that type for each argument list:
     * as the type of a template parameter, only its parameter count is used */
    if (d->is_template && d->is_func_type && d->func_type_is_pointer) {
        ck_func_type_alias(ck, d);
        return;
    }
    if (d->is_template) {
        ck_alias_template_decl(ck, d);
        return;
    }
    if (ck_func_type_alias(ck, d)) return;
    const ast_type *dt = d->type;
    if (!ck->fn && ck->scope == ck->globals && dt && dt->kind == AST_TYPE_NAME && dt->name.count &&
        dt->name.parts[dt->name.count - 1].has_targs) {
        ck_sym *s = ck_declare(ck, SYM_TYPE, d->name, d->loc);
        s->lazy_typedef = d;
        s->lazy_ns = ck->ns;
        return;
    }
    bool is_ref;
    ir_type *t = ck_decl_type(ck, d->type, &is_ref, false);
    if (!t) return;
    if (is_ref) {
        en_error(ck->diags, d->loc, "reference aliases are not supported by enigma ('%s')", d->name);
        return;
    }
    /* `typedef struct { ... } args_t;` (ggml's argument structs): the struct is known by the
     * typedef's name in diagnostics, --emit output and pipeline reflection */
    if (t->kind == IR_T_STRUCT && t->name && strncmp(t->name, "__anonymous_struct_", 19) == 0)
        t->name = ck_qualify(ck, d->name);
    ck_sym *s = ck_declare(ck, SYM_TYPE, d->name, d->loc);
    s->type = t;
}

void ck_resolve_lazy_typedef(checker *ck, ck_sym *s) {
    if (!s->lazy_typedef || s->type || s->lazy_resolving) return;
    s->lazy_resolving = true;
    ck_fnctx saved = ck_save_fn(ck);
    ir_stmt *block = ck->block;
    ck->fn = NULL;
    ck->scope = ck->globals;
    ck->ns = s->lazy_ns;
    bool is_ref = false;
    ir_type *t = ck_decl_type(ck, s->lazy_typedef->type, &is_ref, false);
    ck_restore_fn(ck, saved);
    ck->block = block;
    if (t && is_ref) {
        en_error(ck->diags, s->lazy_typedef->loc, "reference aliases are not supported by enigma ('%s')", s->lazy_typedef->name);
        t = NULL;
    }
    if (t && t->kind == IR_T_STRUCT && t->name && strncmp(t->name, "__anonymous_struct_", 19) == 0)
        t->name = s->name;
    s->type = t;
    s->lazy_typedef = t ? NULL : s->lazy_typedef; /* a failure stays reported once */
    s->lazy_resolving = false;
}

/* ---- functions ---------------------------------------------------------------------------------- */
static const char *attr_name(const ast_attr *a) {
    const char *n = a->name ? a->name : "";
    if (strncmp(n, "metal::", 7) == 0) n += 7;
    return n;
}

static ir_attr position_attr(const char *n) {
    for (int a = IR_ATTR_NONE + 1; a < IR_ATTR_COUNT; a++)
        if (en_streq(n, ir_attr_name((ir_attr)a))) return (ir_attr)a;
    return IR_ATTR_NONE;
}

/* the attributes that may be 2- or 3-vectors (Metal spec, kernel function input attributes) */
static bool attr_allows_vector(ir_attr a) {
    switch (a) {
    case IR_ATTR_THREAD_POSITION_IN_GRID: case IR_ATTR_THREADS_PER_GRID:
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: case IR_ATTR_THREADS_PER_THREADGROUP:
    case IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP: case IR_ATTR_THREADGROUP_POSITION_IN_GRID:
    case IR_ATTR_THREADGROUPS_PER_GRID:
        return true;
    default:
        return false;
    }
}

/* attributes whose types must match: the position and the size of one space */
static int attr_family(ir_attr a) {
    switch (a) {
    case IR_ATTR_THREAD_POSITION_IN_GRID: case IR_ATTR_THREADS_PER_GRID: return 1;
    case IR_ATTR_THREADGROUP_POSITION_IN_GRID: case IR_ATTR_THREADGROUPS_PER_GRID: return 2;
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: case IR_ATTR_THREADS_PER_THREADGROUP:
    case IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP: return 3;
    default: return 0;
    }
}

static bool single_int_arg(checker *ck, const ast_attr *a, int64_t *out) {
    if (a->args.count != 1) {
        en_error(ck->diags, a->loc, "attribute '%s' needs one integer argument", attr_name(a));
        return false;
    }
    return ck_const_expr(ck, a->args.items[0], out, "an attribute argument");
}

typedef struct kernel_params {
    ir_var *attrs[IR_ATTR_COUNT];
    int vector_width;       /* of the vector-typed position attributes, 0 if none yet */
    ir_var *vector_first;
    EN_VEC(ir_var *) buffers, groups;
} kernel_params;

static void kernel_param(checker *ck, ir_func *fn, ir_var *v, const ast_param *p, bool is_ref,
                         kernel_params *kp) {
    ir_attr attr = IR_ATTR_NONE;
    int64_t buffer = -1, group = -1;
    bool has_buffer = false, has_group = false;
    for (int i = 0; i < p->attrs.count; i++) {
        const ast_attr *a = &p->attrs.items[i];
        const char *n = attr_name(a);
        ir_attr pa = position_attr(n);
        if (pa != IR_ATTR_NONE) {
            attr = pa;
        } else if (en_streq(n, "buffer")) {
            has_buffer = true;
            if (!single_int_arg(ck, a, &buffer)) buffer = -2;
        } else if (en_streq(n, "threadgroup")) {
            has_group = true;
            if (!single_int_arg(ck, a, &group)) group = -2;
        } else if (en_streq(n, "texture")) {
            en_error(ck->diags, a->loc, "textures are not supported by enigma");
            return;
        } else if (en_streq(n, "sampler")) {
            en_error(ck->diags, a->loc, "samplers are not supported by enigma");
            return;
        } else if (en_streq(n, "stage_in")) {
            en_error(ck->diags, a->loc, "[[stage_in]] is not supported by enigma");
            return;
        } else if (en_streq(n, "grid_origin") || en_streq(n, "grid_size")) {
            en_error(ck->diags, a->loc, "[[%s]] is not supported by enigma", n);
            return;
        } else if (en_streq(n, "id")) {
            en_error(ck->diags, a->loc, "[[%s]] is not supported by enigma", n);
            return;
        } else if (en_streq(n, "function_constant")) {
            continue; /* decided in ck_kernel_build (param_present): the parameter is here */
        }
        /* other attributes (e.g. [[clang::...]]) carry no meaning for kernels here */
    }
    const char *pname = p->name ? p->name : "<unnamed>";
    ir_type *t = v->type;
    if (attr != IR_ATTR_NONE) {
        bool ok = !is_ref && (t->kind == IR_T_U32 || t->kind == IR_T_U16 ||
                              (attr_allows_vector(attr) && t->kind == IR_T_VEC && !t->packed &&
                               (t->count == 2 || t->count == 3) &&
                               (t->elem->kind == IR_T_U32 || t->elem->kind == IR_T_U16)));
        if (!ok) {
            en_error(ck->diags, p->loc, "[[%s]] parameter '%s' must be %s, not '%s'", ir_attr_name(attr),
                     pname, attr_allows_vector(attr) ? "uint, uint2, uint3, ushort, ushort2 or ushort3" : "uint or ushort",
                     is_ref ? "a reference" : ck_type_name(ck, t));
            return;
        }
        if (kp->attrs[attr]) {
            en_error(ck->diags, p->loc, "[[%s]] is given twice (parameters '%s' and '%s')", ir_attr_name(attr),
                     kp->attrs[attr]->name, pname);
            return;
        }
        if (t->kind == IR_T_VEC) {
            if (kp->vector_width && kp->vector_width != (int)t->count) {
                en_error(ck->diags, p->loc,
                         "[[%s]] parameter '%s' is a %u-vector but '%s' is a %d-vector; position attributes "
                         "of one kernel must have the same vector width",
                         ir_attr_name(attr), pname, t->count, kp->vector_first->name, kp->vector_width);
                return;
            }
            if (!kp->vector_width) {
                kp->vector_width = (int)t->count;
                kp->vector_first = v;
            }
        }
        int fam = attr_family(attr);
        for (int a = 1; fam && a < IR_ATTR_COUNT; a++) {
            if (attr_family((ir_attr)a) == fam && kp->attrs[a] && kp->attrs[a]->type != t) {
                en_error(ck->diags, p->loc, "[[%s]] parameter '%s' has type '%s' but [[%s]] parameter '%s' has '%s'; they must match",
                         ir_attr_name(attr), pname, ck_type_name(ck, t), ir_attr_name((ir_attr)a),
                         kp->attrs[a]->name, ck_type_name(ck, kp->attrs[a]->type));
                return;
            }
        }
        kp->attrs[attr] = v;
        v->param_kind = IR_PARAM_ATTR;
        v->attr = attr;
        return;
    }
    if (t->kind == IR_T_PTR && t->space == IR_SPACE_THREADGROUP) {
        if (has_buffer) {
            en_error(ck->diags, p->loc, "threadgroup parameter '%s' takes [[threadgroup(n)]], not [[buffer(n)]]", pname);
            return;
        }
        v->param_kind = IR_PARAM_THREADGROUP;
        v->binding = (int)group;
        if (group < -1) return;
        if (group > 30) {
            en_error(ck->diags, p->loc, "threadgroup index %lld of '%s' is out of range (0..30)", (long long)group, pname);
            return;
        }
        EN_PUSH(ck->a, kp->groups, v);
        return;
    }
    if (t->kind == IR_T_PTR && (t->space == IR_SPACE_DEVICE || t->space == IR_SPACE_CONSTANT)) {
        if (has_group) {
            en_error(ck->diags, p->loc, "[[threadgroup(n)]] parameter '%s' must be a threadgroup pointer", pname);
            return;
        }
        if (t->elem->kind == IR_T_PTR || t->elem->kind == IR_T_SIMD_MATRIX) {
            en_error(ck->diags, p->loc, "buffer parameter '%s' cannot hold '%s' elements", pname,
                     ck_type_name(ck, t->elem));
            return;
        }
        if (t->space == IR_SPACE_CONSTANT && t->elem->kind == IR_T_ATOMIC) {
            en_error(ck->diags, p->loc, "atomic buffer '%s' must be in device memory", pname);
            return;
        }
        v->param_kind = IR_PARAM_BUFFER;
        v->binding = (int)buffer;
        v->is_reference = is_ref;
        if (buffer < -1) return;
        if (buffer > 30) {
            en_error(ck->diags, p->loc, "buffer index %lld of '%s' is out of range (0..30)", (long long)buffer, pname);
            return;
        }
        EN_PUSH(ck->a, kp->buffers, v);
        return;
    }
    (void)fn;
    en_error(ck->diags, p->loc,
             "kernel parameter '%s' of type '%s' needs a device, constant or threadgroup pointer or "
             "reference, or a position attribute such as [[thread_position_in_grid]]",
             pname, is_ref ? ck_type_name(ck, t->elem) : ck_type_name(ck, t));
}

/* explicit indices must differ; the others take the lowest free ones in order */
static void assign_bindings(checker *ck, ir_var **vars, int n, const char *what) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (vars[i]->binding >= 0 && vars[i]->binding == vars[j]->binding)
                en_error(ck->diags, vars[i]->loc, "%s index %d is used by both '%s' and '%s'", what,
                         vars[i]->binding, vars[j]->name, vars[i]->name);
    int next = 0;
    for (int i = 0; i < n; i++) {
        if (vars[i]->binding >= 0) continue;
        for (;;) {
            bool taken = false;
            for (int j = 0; j < n; j++)
                if (vars[j]->binding == next) taken = true;
            if (!taken) break;
            next++;
        }
        vars[i]->binding = next++;
    }
}

/* resolves a function's signature into `sig` (in the current scope, where template
 * parameters are bound for an instantiation) */
static bool resolve_signature(checker *ck, const ast_decl *d, ck_inst *sig) {
    bool ok = true;
    /* T& f(): returns the pointer a reference lowers to (ck_returns_ref) */
    ir_type *ret = !d->type ? NULL : d->type->kind == AST_TYPE_REF ? type_rec(ck, d->type, 0) : ck_type(ck, d->type);
    if (!ret) ok = false;
    int n = d->params.count;
    /* f(void) */
    if (n == 1 && !d->params.items[0].name && d->params.items[0].type &&
        d->params.items[0].type->kind == AST_TYPE_NAME && d->params.items[0].type->name.count == 1 &&
        d->params.items[0].type->name.parts[0].ident && en_streq(d->params.items[0].type->name.parts[0].ident, "void"))
        n = 0;
    sig->param_count = n;
    sig->param_types = en_alloc(ck->a, sizeof(ir_type *) * (size_t)(n + 1));
    sig->param_is_ref = en_alloc(ck->a, sizeof(bool) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const ast_param *p = &d->params.items[i];
        if (p->type && p->type->kind == AST_TYPE_ARRAY) {
            /* C: an array parameter is a pointer to its first element */
            ir_type *elem = type_rec(ck, p->type->base, 1);
            const ast_type *b = decl_base(p->type);
            sig->param_types[i] = elem ? ir_type_ptr(ck->m, elem, space_of(b ? b->space : AST_AS_NONE),
                                                     b && (b->quals & AST_Q_CONST)) : NULL;
            sig->param_is_ref[i] = false;
        } else {
            sig->param_types[i] = ck_decl_type(ck, p->type, &sig->param_is_ref[i], true);
        }
        if (!sig->param_types[i]) ok = false;
        else if (sig->param_types[i]->kind == IR_T_VOID) {
            en_error(ck->diags, p->loc, "parameter '%s' has type void", p->name ? p->name : "?");
            ok = false;
        }
    }
    /* a C array cannot be returned; metal::array<T, N> (an array in enigma's IR too) can:
     * MLX's DivMod returns {quotient, remainder} */
    if (ret && ret->kind == IR_T_ARRAY && !(d->type && d->type->kind == AST_TYPE_NAME && d->type->name.count &&
                                            en_streq(ast_name_last(&d->type->name), "array"))) {
        en_error(ck->diags, d->loc, "function '%s' cannot return an array", d->name ? d->name : "?");
        ok = false;
    }
    sig->fn = NULL; /* made by make_ir_func once the signature is known good */
    return ok;
}

/* a constructor has no written return type: its signature is its parameters alone */
static bool resolve_constructor_or_method(checker *ck, const ast_decl *d, ck_inst *sig) {
    if (!d->is_constructor) return resolve_signature(ck, d, sig);
    ast_decl tmp = *d;
    ast_type void_type = {.kind = AST_TYPE_NAME, .loc = d->loc};
    ast_name_part part = {.loc = d->loc, .ident = "void"};
    void_type.name = (ast_name){.loc = d->loc, .parts = &part, .count = 1};
    tmp.type = &void_type;
    return resolve_signature(ck, &tmp, sig);
}

static ir_type *sig_return(checker *ck, const ast_decl *d) {
    if (d->type && d->type->kind == AST_TYPE_REF) return type_rec(ck, d->type, 0);
    return d->type ? ck_type(ck, d->type) : NULL;
}

/* checks a function body into fn: params declared in a fresh scope above `outer` */
static void function_body(checker *ck, const ast_decl *d, ir_func *fn, ck_inst *sig, bool is_kernel,
                          ck_scope *outer, const char *ns) {
    ck_fnctx saved = ck_save_fn(ck);
    ck->fn = fn;
    ck->block = fn->body;
    ck->scope = outer;
    ck_push_scope(ck);
    ck->jumps = NULL;
    ck->control_depth = 0;
    ck->ret_type = fn->return_type;
    ck->is_kernel = is_kernel;
    ck->ns = ns;
    ck->this_var = NULL;
    for (int i = 0; i < fn->param_count && i < d->params.count; i++) {
        const ast_param *p = &d->params.items[i];
        if (!p->name) continue;
        ck_sym *s = ck_declare(ck, SYM_VAR, p->name, p->loc);
        s->var = fn->params[i];
        s->is_ref = sig->param_is_ref[i];
    }
    if (d->body) ck_body(ck, d->body);
    ck_restore_fn(ck, saved);
}

static ir_func *make_ir_func(checker *ck, const char *name, const ast_decl *d, ck_inst *sig, ir_type *ret,
                             bool is_kernel) {
    ir_func *fn = ir_func_new(ck->m, name, d->loc);
    fn->is_kernel = is_kernel;
    fn->return_type = ret;
    if (d->type && d->type->kind == AST_TYPE_REF) EN_PUSH(ck->a, ck->ref_funcs, fn);
    fn->param_count = sig->param_count;
    fn->params = en_alloc(ck->a, sizeof(ir_var *) * (size_t)(sig->param_count + 1));
    for (int i = 0; i < sig->param_count; i++) {
        const ast_param *p = &d->params.items[i];
        ir_type *pt = sig->param_types[i];
        ir_var *v = ir_var_new(ck->m, fn, p->name ? p->name : en_fmt(ck->a, "arg%d", i), pt, p->loc);
        v->is_reference = sig->param_is_ref[i];
        fn->params[i] = v;
    }
    sig->fn = fn;
    return fn;
}

/* [[function_constant(c)]] on a kernel parameter: the parameter exists only when function
 * constant c is true (a constant with no value counts as false, as a pipeline without it
 * has no such argument) */
static bool param_present(checker *ck, const ast_param *p) {
    for (int i = 0; i < p->attrs.count; i++) {
        const ast_attr *a = &p->attrs.items[i];
        if (!en_streq(attr_name(a), "function_constant")) continue;
        const ast_expr *e = a->args.count == 1 ? a->args.items[0] : NULL;
        ck_sym *s = e && e->kind == AST_EXPR_NAME ? ck_lookup(ck, &e->name) : NULL;
        if (!s || s->kind != SYM_CONST || !s->is_function_constant) {
            en_error(ck->diags, a->loc, "[[function_constant(...)]] of parameter '%s' must name a function constant",
                     p->name ? p->name : "?");
            return true;
        }
        if (!s->value) return false;
        ir_expr *b = ck_convert(ck, s->value, ck_t(ck, IR_T_BOOL), a->loc);
        return b && b->kind == IR_E_CONST && b->c.u;
    }
    return true;
}

/* builds kernel `name` from d: signature (in the current scope), parameters and their
 * bindings, attributes, then the body checked in `outer` (the template's bindings for an
 * explicit instantiation). `extra` are attributes written on the instantiation. */
void ck_kernel_build(checker *ck, const ast_decl *d, ck_inst *sig, const char *name, ck_scope *outer,
                     const char *ns, const ast_attrs *extra) {
    ir_type *ret = sig_return(ck, d);
    if (ret && ret->kind != IR_T_VOID) {
        en_error(ck->diags, d->loc, "kernel '%s' must return void, not '%s'", name, ck_type_name(ck, ret));
        return;
    }
    if (!d->body) return; /* a declaration: nothing to build */
    if (ir_module_kernel(ck->m, name)) {
        en_error(ck->diags, d->loc, "kernel '%s' is defined twice", name);
        return;
    }
    if (!resolve_signature(ck, d, sig)) return;
    ir_func *fn = make_ir_func(ck, name, d, sig, ck_t(ck, IR_T_VOID), true);
    kernel_params kp = {0};
    bool *absent = en_alloc(ck->a, sizeof(bool) * (size_t)(fn->param_count + 1));
    for (int i = 0; i < fn->param_count; i++) {
        const ast_param *p = &d->params.items[i];
        if ((absent[i] = !param_present(ck, p))) continue;
        kernel_param(ck, fn, fn->params[i], p, sig->param_is_ref[i], &kp);
        if (p->default_value)
            en_error(ck->diags, p->loc, "kernel parameters cannot have default values");
    }
    assign_bindings(ck, kp.buffers.items, kp.buffers.count, "buffer");
    assign_bindings(ck, kp.groups.items, kp.groups.count, "threadgroup");
    for (int k = 0; k < 2; k++) {
        const ast_attrs *attrs = k == 0 ? &d->attrs : extra;
        for (int i = 0; attrs && i < attrs->count; i++) {
            const ast_attr *a = &attrs->items[i];
            const char *n = attr_name(a);
            if (en_streq(n, "max_total_threads_per_threadgroup")) {
                int64_t v;
                if (!single_int_arg(ck, a, &v)) continue;
                if (v < 1 || v > 1024) {
                    en_error(ck->diags, a->loc,
                             "max_total_threads_per_threadgroup must be between 1 and 1024, got %lld",
                             (long long)v);
                    continue;
                }
                fn->max_total_threads_per_threadgroup = (uint32_t)v;
            }
        }
    }
    bool was_in_template = ck->in_template;
    ck->in_template = extra != NULL;
    function_body(ck, d, fn, sig, true, outer, ns);
    ck->in_template = was_in_template;
    /* an absent parameter is a local of the body, declared first: only code its constant
     * guards names it, and that code was left out (check_stmt.c) */
    int kept = 0;
    for (int i = 0; i < fn->param_count; i++) {
        if (!absent[i]) {
            fn->params[kept++] = fn->params[i];
            continue;
        }
        ir_var *v = fn->params[i];
        v->param_kind = IR_PARAM_NONE;
        ir_block_append(ck->m, fn->body, ir_decl(ck->m, fn, v, NULL, v->loc));
        ir_stmt *decl = fn->body->stmts[fn->body->stmt_count - 1];
        memmove(&fn->body->stmts[1], &fn->body->stmts[0], sizeof(ir_stmt *) * (size_t)(fn->body->stmt_count - 1));
        fn->body->stmts[0] = decl;
    }
    fn->param_count = kept;
}

static bool same_signature(const ck_inst *a, const ck_inst *b) {
    if (a->param_count != b->param_count) return false;
    for (int i = 0; i < a->param_count; i++)
        if (a->param_types[i] != b->param_types[i] || a->param_is_ref[i] != b->param_is_ref[i]) return false;
    return true;
}

static bool same_signature(const ck_inst *a, const ck_inst *b);

/* the written signature of member declaration d, resolved in the scope of its struct */
static bool member_signature(checker *ck, const ck_func *cf, const ast_decl *d, ck_inst *sig) {
    ck_fnctx saved = ck_save_fn(ck);
    ck->scope = cf->outer ? cf->outer : ck->globals;
    ck->ns = cf->ns;
    bool ok = resolve_constructor_or_method(ck, d, sig);
    ck_restore_fn(ck, saved);
    return ok;
}

/* `template <> R S<float>::f(params) {...}`: an explicit specialization of member f of
 * class template S for the instance S<float> (C++ [temp.expl.spec]), which replaces the
 * template's definition of f for that instance only; it must come before the member is
 * first used. Among overloads, the one with the specialization's parameter types. */
static void member_specialization(checker *ck, const ast_decl *d, ir_type *owner, const char *oname) {
    ck_func *found = NULL;
    int candidates = 0;
    ck_inst want = {0};
    bool want_known = false;
    for (int i = 0; i < ck->methods.count; i++) {
        ck_func *cf = ck->methods.items[i];
        if (cf->owner != owner || cf->is_template || !en_streq(cf->d->name, d->name) ||
            cf->d->params.count != d->params.count || cf->d->is_const_method != d->is_const_method)
            continue;
        candidates++;
        if (!found) {
            found = cf;
            continue;
        }
        /* overloads with as many parameters: compare the types */
        if (!want_known && !(want_known = member_signature(ck, cf, d, &want))) return;
        ck_inst have = {0};
        if (member_signature(ck, cf, cf->d, &have) && same_signature(&have, &want)) found = cf;
    }
    if (found && candidates > 1) {
        ck_inst have = {0};
        if (!want_known && !member_signature(ck, found, d, &want)) return;
        if (!member_signature(ck, found, found->d, &have) || !same_signature(&have, &want)) found = NULL;
    }
    if (!found) {
        en_error(ck->diags, d->loc, "'%s' declares no member function '%s' with these parameters to specialize here",
                 oname, d->name);
        return;
    }
    for (int i = 0; i < found->insts.count; i++)
        if (found->insts.items[i]->body_checked) {
            en_error(ck->diags, d->loc, "specialization of '%s::%s' after it was already used", oname, d->name);
            return;
        }
    found->d = d;
    found->definition = d;
    found->insts.count = 0; /* signatures made from the template's declaration */
}

/* `R S::f(params) {...}`: the definition of member function f declared in struct S, which
 * takes the declaration's place (its parameter names and body), checked now for thread
 * memory as those defined in the struct are */
static void member_definition(checker *ck, const ast_decl *d) {
    ast_name owner_name = d->qual_name;
    owner_name.count--;
    ir_type *owner = ck_type_name_lookup(ck, &owner_name, false);
    const char *oname = ast_name_str(ck->a, &owner_name);
    if (!owner || owner->kind != IR_T_STRUCT) {
        en_error(ck->diags, d->loc, "'%s' is not a struct whose member '%s' could be defined here", oname, d->name);
        return;
    }
    if (strchr(owner->name, '<')) {
        if (d->is_template && !d->tparams.count) {
            member_specialization(ck, d, owner, oname);
            return;
        }
        en_error(ck->diags, d->loc, "members of class templates must be defined inside the template in enigma ('%s::%s')",
                 oname, d->name);
        return;
    }
    for (int i = 0; i < ck->methods.count; i++) {
        ck_func *cf = ck->methods.items[i];
        if (cf->owner != owner || cf->definition || cf->is_template || !en_streq(cf->d->name, d->name) ||
            cf->d->params.count != d->params.count)
            continue;
        cf->d = d;
        cf->definition = d;
        ck_inst *inst = method_inst(ck, cf, IR_SPACE_THREAD);
        if (inst) method_body(ck, cf, inst);
        return;
    }
    en_error(ck->diags, d->loc, "'%s' declares no member function '%s' with %d parameters to define here", oname,
             d->name, d->params.count);
}

static void function_decl(checker *ck, const ast_decl *d) {
    if (!d->name) return;
    if (d->qual_name.count > 1 && !d->is_constructor && !ck->fn) {
        member_definition(ck, d);
        return;
    }
    if (d->is_operator && strncmp(d->name, "operator ", 9) == 0) {
        en_error(ck->diags, d->loc, "conversion operators are not supported by enigma ('%s')", d->name);
        return;
    }
    if (d->is_constructor || d->qual_name.count > 0) {
        en_error(ck->diags, d->loc, "member functions are not supported by enigma ('%s')", d->name);
        return;
    }
    if (ck->fn) {
        en_error(ck->diags, d->loc, "functions cannot be declared inside a function ('%s')", d->name);
        return;
    }
    bool is_kernel = (d->specs & AST_SPEC_KERNEL) != 0;
    for (int i = 0; i < d->attrs.count; i++)
        if (en_streq(attr_name(&d->attrs.items[i]), "kernel")) is_kernel = true;
    for (int i = 0; i < d->attrs.count; i++) {
        const char *n = attr_name(&d->attrs.items[i]);
        if (en_streq(n, "vertex") || en_streq(n, "fragment") || en_streq(n, "visible") ||
            en_streq(n, "intersection") || en_streq(n, "object") || en_streq(n, "mesh")) {
            en_error(ck->diags, d->attrs.items[i].loc, "%s functions are not supported by enigma", n);
            return;
        }
    }
    ck_func *cf = en_alloc(ck->a, sizeof *cf);
    cf->d = d;
    cf->qname = ck_qualify(ck, d->name);
    cf->ns = ck->ns;
    cf->is_template = d->is_template;
    /* a static member function of a class template instantiation sees its parameters */
    if (ck->scope != ck->globals) cf->outer = ck->scope;
    if (is_kernel) {
        if (d->is_template) {
            /* built per explicit instantiation (template.c); kept in the overload set so
             * that `template [[host_name("k")]] kernel T f<float>;` finds it */
            cf->is_kernel = true;
            ck_sym *s = ck_find_in_scope(ck->globals, cf->qname);
            if (s && s->kind != SYM_FUNC) {
                en_error(ck->diags, d->loc, "'%s' is already declared as something other than a function", d->name);
                return;
            }
            if (!s) s = ck_declare(ck, SYM_FUNC, d->name, d->loc);
            cf->next = s->funcs;
            s->funcs = cf;
            return;
        }
        cf->definition = d;
        /* [[host_name("k2")]] on a kernel renames it for the host */
        bool bad = false;
        const char *host = ck_host_name(ck, &d->attrs, &bad);
        if (bad) return;
        ck_kernel_build(ck, d, &cf->sig, host ? host : d->name, ck->globals, ck->ns, NULL);
        /* known by name only so that a call of it can say why it is wrong */
        bool known = ck_find_in_scope(ck->globals, cf->qname) != NULL;
        if (!known && ck->scope == ck->globals) {
            ck_sym *ks = ck_declare(ck, SYM_FUNC, d->name, d->loc);
            cf->is_kernel = true;
            ks->funcs = cf;
        }
        return;
    }
    /* an overload set under the qualified name */
    ck_sym *s = ck_find_in_scope(ck->globals, cf->qname);
    if (s && s->kind != SYM_FUNC) {
        en_error(ck->diags, d->loc, "'%s' is already declared as something other than a function", d->name);
        return;
    }
    if (!s) s = ck_declare(ck, SYM_FUNC, d->name, d->loc);
    if (d->is_template && d->spec_name.count) {
        ck_add_specialization(ck, s, d);
        return;
    }
    if (d->is_template) {
        cf->next = s->funcs;
        s->funcs = cf;
        /* the instance's own symbol for the name sees every overload (MLX's attention
         * fragment declares mma for fragments, then mma for matrices, which the first calls) */
        ck_sym *here = ck->scope != ck->globals ? ck_find_in_scope(ck->scope, d->name) : NULL;
        if (here && here != s && here->kind == SYM_FUNC) here->funcs = s->funcs;
        return;
    }
    if (!resolve_signature(ck, d, &cf->sig)) return;
    ir_type *ret = sig_return(ck, d);
    if (!ret) return;
    for (ck_func *o = s->funcs; o; o = o->next) {
        if (o->is_template || o->is_kernel || !same_signature(&o->sig, &cf->sig)) continue;
        /* a redeclaration or the definition of an earlier prototype */
        if (o->sig.fn && o->sig.fn->return_type != ret) {
            en_error(ck->diags, d->loc, "'%s' is redeclared with another return type", d->name);
            return;
        }
        if (d->body) {
            if (o->definition) {
                en_error(ck->diags, d->loc, "redefinition of '%s'", d->name);
                return;
            }
            o->definition = d;
            o->d = d;
            /* parameter names come from the definition */
            for (int i = 0; i < o->sig.param_count && i < d->params.count; i++)
                if (d->params.items[i].name) o->sig.fn->params[i]->name = d->params.items[i].name;
            function_body(ck, d, o->sig.fn, &o->sig, false, cf->outer ? cf->outer : ck->globals, ck->ns);
        }
        return;
    }
    cf->signature_ok = true;
    make_ir_func(ck, cf->qname, d, &cf->sig, ret, false);
    cf->next = s->funcs;
    s->funcs = cf;
    /* a static member overload of a class template instance: the instance's scope has its
     * own symbol for the name (class.c publishes a copy under S<...>::f), kept the same */
    ck_sym *here = ck->scope != ck->globals ? ck_find_in_scope(ck->scope, d->name) : NULL;
    if (here && here != s && here->kind == SYM_FUNC) here->funcs = s->funcs;
    if (d->body) {
        cf->definition = d;
        if (ck->deferring_bodies) { /* a static member function: checked once its struct is whole */
            EN_PUSH(ck->a, ck->deferred_bodies, cf);
            return;
        }
        /* (a static member function of a class template instantiation sees its parameters) */
        function_body(ck, d, cf->sig.fn, &cf->sig, false, cf->outer ? cf->outer : ck->globals, ck->ns);
    }
}

/* ---- template deduction and instantiation ---------------------------------------------------- */
typedef ck_binding binding;

/* matches a written parameter type against an argument type, binding template parameters */
bool ck_deduce_targs(checker *ck, const ast_name_part *pattern, const ck_binding *known, int known_count,
                     ck_binding *b, int nb) {
    for (int k = 0; k < pattern->targs.count && k < known_count; k++) {
        if (!known[k].set) continue;
        const ast_targ *ta = &pattern->targs.items[k];
        if (known[k].is_type) {
            /* a type argument: the written one (a name the parser took for an expression too)
             * against the known type */
            ast_type as_type = {.kind = AST_TYPE_NAME, .loc = ta->loc};
            const ast_type *pt = ta->type;
            if (!pt && ta->expr && ta->expr->kind == AST_EXPR_NAME) {
                as_type.name = ta->expr->name;
                pt = &as_type;
            }
            if (pt && known[k].value.type && !ck_deduce(ck, pt, known[k].value.type, b, nb)) return false;
        } else if (ta->expr && ta->expr->kind == AST_EXPR_NAME && ta->expr->name.count == 1) {
            /* a value argument written as one parameter's name: that parameter's value */
            for (int i = 0; i < nb; i++) {
                if (b[i].is_type || b[i].given || !en_streq(b[i].name, ta->expr->name.parts[0].ident)) continue;
                if (b[i].set && b[i].value.value != known[k].value.value) return false;
                b[i].set = true;
                b[i].value.value = known[k].value.value;
            }
        }
    }
    return true;
}

bool ck_deduce(checker *ck, const ast_type *pt, ir_type *at, ck_binding *b, int nb) {
    if (!pt || !at) return true;
    switch (pt->kind) {
    case AST_TYPE_REF:
        return ck_deduce(ck, pt->base, at, b, nb);
    case AST_TYPE_POINTER:
        /* an array argument decays to a pointer to its first element (MLX passes its
         * threadgroup tiles to `threadgroup T* As`) */
        if (at->kind == IR_T_ARRAY) return ck_deduce(ck, pt->base, at->elem, b, nb);
        if (at->kind != IR_T_PTR) return true;
        return ck_deduce(ck, pt->base, at->elem, b, nb);
    case AST_TYPE_ARRAY:
        if (at->kind != IR_T_ARRAY) return true;
        /* T (&v)[N]: N from the array's length */
        if (pt->dim && pt->dim->kind == AST_EXPR_NAME && pt->dim->name.count == 1)
            for (int i = 0; i < nb; i++) {
                if (b[i].is_type || !en_streq(b[i].name, pt->dim->name.parts[0].ident)) continue;
                if (b[i].given) break;
                if (b[i].set && b[i].value.value != (int64_t)at->count) return false;
                b[i].set = true;
                b[i].value.value = at->count;
            }
        return ck_deduce(ck, pt->base, at->elem, b, nb);
    case AST_TYPE_NAME: {
        const ast_name *n = &pt->name;
        /* metal::vec<U, N> deduces as vec<U, N> does */
        bool metal_qualified = n->count == 2 && n->parts && n->parts[0].ident && en_streq(n->parts[0].ident, "metal") &&
                               !n->parts[0].has_targs;
        if ((n->count != 1 && !metal_qualified) || !n->parts || !n->parts[n->count - 1].ident) return true;
        const ast_name_part *p = &n->parts[n->count - 1];
        if (!p->has_targs) {
            for (int i = 0; i < nb; i++) {
                if (!b[i].is_type || !en_streq(b[i].name, p->ident)) continue;
                if (b[i].given) return true;
                ir_type *t = at;
                if (t->kind == IR_T_VEC && t->packed) t = ir_type_vec(ck->m, t->elem, t->count, false);
                if (b[i].set && b[i].value.type != t) return false;
                b[i].set = true;
                b[i].value.type = t;
                return true;
            }
            return true;
        }
        /* S<T, N> against an instantiation of class template S: its arguments, one by one */
        ck_sym *ts = at->kind == IR_T_STRUCT ? ck_lookup(ck, n) : NULL;
        const ck_binding *ia;
        int ic;
        if (ts && ts->kind == SYM_TYPE && ts->class_template && ck_class_instance_args(ts, at, &ia, &ic))
            return ck_deduce_targs(ck, p, ia, ic, b, nb);
        if (!ts) ts = ck_lookup(ck, n);
        if (ts && ts->kind == SYM_TYPE && ts->other_template) return ck_deduce_through_alias(ck, ts, p, at, b, nb);
        /* simdgroup_matrix<T, 8, 8> */
        if (en_streq(p->ident, "simdgroup_matrix") && p->targs.count == 3 && at->kind == IR_T_SIMD_MATRIX) {
            const ast_targ *t0 = &p->targs.items[0];
            ast_type tmp = {.kind = AST_TYPE_NAME, .loc = t0->loc};
            if (t0->expr && t0->expr->kind == AST_EXPR_NAME) tmp.name = t0->expr->name;
            const ast_type *et = t0->type ? t0->type : t0->expr && t0->expr->kind == AST_EXPR_NAME ? &tmp : NULL;
            return !et || ck_deduce(ck, et, at->elem, b, nb);
        }
        /* vec<T, N> */
        if (en_streq(p->ident, "vec") && p->targs.count == 2 && at->kind == IR_T_VEC) {
            const ast_targ *t0 = &p->targs.items[0], *t1 = &p->targs.items[1];
            if (t0->type && !ck_deduce(ck, t0->type, at->elem, b, nb)) return false;
            if (t0->expr && t0->expr->kind == AST_EXPR_NAME) {
                ast_type tmp = {.kind = AST_TYPE_NAME, .loc = t0->loc, .name = t0->expr->name};
                if (!ck_deduce(ck, &tmp, at->elem, b, nb)) return false;
            }
            if (t1->expr && t1->expr->kind == AST_EXPR_NAME && t1->expr->name.count == 1) {
                for (int i = 0; i < nb; i++) {
                    if (b[i].is_type || !en_streq(b[i].name, t1->expr->name.parts[0].ident)) continue;
                    if (b[i].given) continue;
                    if (b[i].set && b[i].value.value != (int64_t)at->count) return false;
                    b[i].set = true;
                    b[i].value.value = at->count;
                }
            }
        }
        return true;
    }
    default:
        return true;
    }
}

/* does template parameter tp take a function: `void (*f)(int)`, or a parameter whose type
 * is a function type (`typedef void (disp_t)(...)`, `typedef decltype(f<int>) disp_t`)? */
static const ck_sym *tparam_func_type(checker *ck, const ast_tparam *tp) {
    if (tp->is_type || !tp->type || tp->type->kind != AST_TYPE_NAME) return NULL;
    ck_sym *s = ck_lookup(ck, &tp->type->name);
    return s && s->kind == SYM_TYPE && !s->type && s->func_type_of ? s : NULL;
}

static bool tparam_is_func(checker *ck, const ast_tparam *tp) {
    return tp->is_func || tparam_func_type(ck, tp);
}

/* declares the first `count` template parameters of d in the current scope, bound to b */
static void bind_first_tparams(checker *ck, const ast_decl *d, binding *b, int count) {
    for (int i = 0; i < count; i++) {
        const ast_tparam *tp = &d->tparams.items[i];
        if (!tp->name) continue;
        if (tp->is_type) {
            ck_sym *s = ck_declare(ck, SYM_TYPE, tp->name, tp->loc);
            s->type = b[i].value.type;
            s->is_ref = b[i].value.is_ref;
        } else if (tparam_is_func(ck, tp)) {
            /* calls through the parameter resolve in the named function's overload set,
             * with the template arguments the argument was written with */
            ck_sym *s = ck_declare(ck, SYM_FUNC, tp->name, tp->loc);
            s->funcs = b[i].value.func ? b[i].value.func->funcs : NULL;
            s->called_as = b[i].value.func_name;
            s->fptr_func = b[i].value.fptr_func;
            s->fptr_inst = b[i].value.fptr_inst;
        } else {
            ir_type *t = tp->type ? ck_type(ck, tp->type) : ck_t(ck, IR_T_I32);
            if (!t || !ir_is_scalar(t)) t = ck_t(ck, IR_T_I64);
            ck_sym *s = ck_declare(ck, SYM_CONST, tp->name, tp->loc);
            s->value = ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I64), b[i].value.value, tp->loc), t, tp->loc);
        }
    }
}

static void bind_tparams(checker *ck, const ast_decl *d, binding *b) { bind_first_tparams(ck, d, b, d->tparams.count); }

/* binds the template parameters of cf: explicit arguments first, then deduction from the
 * call's arguments, then defaults. False when this template does not fit (quietly, unless
 * *hard_error is set after a reported error). */
bool ck_template_has_pack(const ast_decl *d) {
    for (int i = 0; i < d->tparams.count; i++)
        if (d->tparams.items[i].is_pack) return true;
    return false;
}

bool ck_bind_targs(checker *ck, const ast_decl *d, const char *qname, const ast_name_part *explicit_args,
                   ir_expr **args, int n, ck_binding *b, bool *hard_error) {
    int nb = d->tparams.count;
    /* variadic templates are parsed (kernel libraries declare them) but not instantiated:
     * never a candidate (ck_call_user says why when nothing else fits) */
    if (ck_template_has_pack(d)) return false;
    /* the caller's scope for this binding's explicit arguments only, not for bindings the
     * evaluation starts in turn (an alias template in a default) */
    ck_scope *explicit_scope = ck->targ_scope;
    ck->targ_scope = NULL;
    /* defaults are the template's: in its namespace, wherever it is used from */
    const char *defaults_ns = ck->defaults_ns;
    ck->defaults_ns = NULL;
    for (int i = 0; i < nb; i++) {
        b[i].name = d->tparams.items[i].name ? d->tparams.items[i].name : "";
        b[i].is_type = d->tparams.items[i].is_type;
    }
    if (explicit_args && explicit_args->has_targs) {
        if (explicit_args->targs.count > nb) {
            if (ck->explain_sfinae)
                en_note(ck->diags, explicit_args->loc, "%d template arguments for the %d parameters of '%s'",
                        explicit_args->targs.count, nb, qname);
            return false;
        }
        for (int i = 0; i < explicit_args->targs.count; i++) {
            const ast_targ *ta = &explicit_args->targs.items[i];
            if (tparam_is_func(ck, &d->tparams.items[i])) {
                bool fits = false;
                if (!ck_fptr_bind(ck, ta, tparam_func_type(ck, &d->tparams.items[i]), explicit_scope, &b[i].value,
                                  &fits)) {
                    en_error(ck->diags, ta->loc, "template argument %d of '%s' must name a function", i + 1,
                             qname);
                    *hard_error = true;
                    return false;
                }
                if (!fits) return false;
                b[i].set = b[i].given = true;
                continue;
            }
            if (ta->type && ta->type->kind == AST_TYPE_REF && b[i].is_type) {
                /* f<constant Args &>(...): parameters of type T become references */
                bool is_ref;
                ir_type *pt = ck_decl_type(ck, ta->type, &is_ref, false);
                if (!pt) {
                    *hard_error = true;
                    return false;
                }
                b[i].set = b[i].given = true;
                b[i].value.type = pt;
                b[i].value.is_ref = true;
                continue;
            }
            ir_type *t;
            int64_t v;
            /* explicit arguments are the caller's: evaluated where the call is written */
            ck_scope *here = ck->scope;
            if (explicit_scope) ck->scope = explicit_scope;
            bool ok = ck_targ_value(ck, ta, &t, &v);
            ck->scope = here;
            if (!ok) {
                *hard_error = true;
                return false;
            }
            if (b[i].is_type != (t != NULL)) {
                if (ck->explain_sfinae)
                    en_note(ck->diags, ta->loc, "template argument %d of '%s' is a %s, but its parameter '%s' takes a %s",
                            i + 1, qname, t ? "type" : "value", b[i].name, b[i].is_type ? "type" : "value");
                return false;
            }
            b[i].set = b[i].given = true;
            b[i].value.type = t;
            b[i].value.value = v;
        }
    }
    int np = d->params.count;
    if (n > np) return false;
    for (int i = 0; i < n; i++) {
        const ast_type *pt = d->params.items[i].type;
        ir_type *at = args[i]->type;
        /* an array given to a parameter taken by value decays: `W w_local` is U* for a U[N]
         * argument ([temp.deduct.call]; MLX's dequantize) */
        if (at->kind == IR_T_ARRAY && pt && pt->kind == AST_TYPE_NAME && ir_is_place(args[i])) {
            bool is_const = false;
            ir_space sp = ck_place_space(args[i], &is_const);
            at = ir_type_ptr(ck->m, at->elem, sp, is_const);
        }
        if (!ck_deduce(ck, pt, at, b, nb)) return false;
    }
    for (int i = 0; i < nb; i++) {
        if (b[i].set) continue;
        const ast_tparam *tp = &d->tparams.items[i];
        if (!(tp->is_type ? tp->default_type != NULL : tp->default_value != NULL)) {
            if (ck->explain_sfinae)
                en_note(ck->diags, tp->loc, "template parameter %d ('%s') of '%s' has no argument and no default", i + 1,
                        b[i].name, qname);
            return false;
        }
        /* a default may name the parameters before it: `int N = WorkPerThread<T>::n`; one
         * that cannot be evaluated takes the template out of the running, quietly (SFINAE:
         * `typename = enable_if_t<is_floating_point_v<T>>`) */
        ck_scope *saved = ck->scope;
        const char *saved_ns = ck->ns;
        if (defaults_ns) ck->ns = defaults_ns;
        en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
        en_diags *loud = ck->diags;
        if (!ck->explain_sfinae) ck->diags = &quiet;
        ck_push_scope(ck);
        bind_first_tparams(ck, d, b, i);
        if (tp->is_type) {
            b[i].value.type = ck_type(ck, tp->default_type);
            b[i].set = b[i].value.type != NULL;
        } else {
            b[i].set = ck_const_expr(ck, tp->default_value, &b[i].value.value, "a template argument");
        }
        ck->scope = saved;
        ck->ns = saved_ns;
        ck->diags = loud;
        if (!b[i].set || quiet.errors) return false;
    }
    /* the type of a value parameter must exist too: `enable_if_t<cond, bool> = true` is how
     * MLX picks between two overloads (SFINAE, quietly) */
    for (int i = 0; i < nb; i++) {
        const ast_tparam *tp = &d->tparams.items[i];
        if (tp->is_type || tp->is_func || !tp->type || tparam_is_func(ck, tp)) continue;
        const ast_type *t = tp->type;
        if (t->kind != AST_TYPE_NAME || !t->name.count || !t->name.parts[t->name.count - 1].has_targs) continue;
        ck_scope *saved = ck->scope;
        en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
        en_diags *loud = ck->diags;
        if (!ck->explain_sfinae) ck->diags = &quiet;
        ck_push_scope(ck);
        bind_first_tparams(ck, d, b, i);
        ir_type *pt = ck_type(ck, t);
        ck->scope = saved;
        ck->diags = loud;
        if (!pt || quiet.errors) return false;
    }
    return true;
}

const char *ck_binding_name(checker *ck, const char *base, const ck_binding *b, int n) {
    en_buf buf = {0};
    en_buf_printf(&buf, "%s<", base);
    for (int i = 0; i < n; i++) {
        if (i) en_buf_puts(&buf, ", ");
        if (b[i].value.func) en_buf_puts(&buf, ck_fptr_binding_text(ck, &b[i].value));
        else if (b[i].value.is_ref) en_buf_printf(&buf, "%s &", ck_type_name(ck, b[i].value.type->elem));
        else if (b[i].value.type) en_buf_puts(&buf, ck_type_name(ck, b[i].value.type));
        else en_buf_printf(&buf, "%lld", (long long)b[i].value.value);
    }
    en_buf_puts(&buf, ">");
    const char *r = en_strdup(ck->a, buf.data ? buf.data : base);
    en_buf_free(&buf);
    return r;
}

ck_scope *ck_template_scope(checker *ck, const ast_decl *d, const ck_binding *b) {
    return ck_template_scope_in(ck, d, b, ck->globals);
}

ck_scope *ck_template_scope_in(checker *ck, const ast_decl *d, const ck_binding *b, ck_scope *parent) {
    ck_scope *saved = ck->scope;
    ck->scope = parent;
    ck_push_scope(ck);
    ck_scope *tscope = ck->scope;
    bind_tparams(ck, d, (binding *)b);
    ck->scope = saved;
    return tscope;
}

/* deduces (with explicit arguments first) and returns the instantiation, or NULL when
 * this template does not fit the call (quietly) */
static ck_inst *instantiate(checker *ck, ck_func *cf, const ast_name_part *explicit_args, ir_expr **args,
                            int n, en_loc loc, bool *hard_error) {
    int nb = cf->d->tparams.count;
    binding *b = en_alloc(ck->a, sizeof(binding) * (size_t)(nb + 1));
    ck->defaults_ns = cf->ns;
    /* the parameter types name what the template's scope has (a class template instance's
     * member types and alias templates, for its static member templates); explicit arguments
     * are the caller's */
    ck_scope *caller = ck->scope, *saved_targ_scope = ck->targ_scope;
    if (cf->outer) {
        ck->scope = cf->outer;
        ck->targ_scope = caller;
    }
    bool bound = ck_bind_targs(ck, cf->d, cf->qname, explicit_args, args, n, b, hard_error);
    ck->scope = caller;
    ck->targ_scope = saved_targ_scope;
    if (!bound) return NULL;
    const char *name = ck_binding_name(ck, cf->qname, b, nb);
    for (int i = 0; i < cf->insts.count; i++)
        if (en_streq(cf->insts.items[i]->name, name)) return cf->insts.items[i];
    if (ck->inst_depth >= MAX_INST_DEPTH) {
        en_error(ck->diags, loc, "template instantiation of '%s' is nested too deeply", name);
        *hard_error = true;
        return NULL;
    }
    /* an explicit specialization replaces the template for these arguments */
    const ast_decl *d = ck_find_specialization(cf, name);
    if (!d) d = cf->d;
    /* the signature under the bindings */
    ck_fnctx saved = ck_save_fn(ck);
    ck->ns = cf->ns;
    ck_scope *tscope = ck_template_scope_in(ck, cf->d, b, cf->outer ? cf->outer : ck->globals);
    ck->scope = tscope;
    ck_inst *inst = en_alloc(ck->a, sizeof *inst);
    inst->name = name;
    inst->d = d;
    /* a signature that cannot be formed under these bindings drops the candidate quietly
     * (SFINAE: `enable_if_t<is_integral_v<T>, T> f(T)`) */
    en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
    en_diags *loud = ck->diags;
    ck->diags = &quiet;
    bool ok = resolve_signature(ck, d, inst);
    ir_type *ret = ok ? sig_return(ck, d) : NULL;
    ck->diags = loud;
    ck_restore_fn(ck, saved);
    if (!ok || !ret || quiet.errors) return NULL;
    make_ir_func(ck, name, d, inst, ret, false);
    inst->tscope = tscope;
    EN_PUSH(ck->a, cf->insts, inst);
    return inst;
}

ck_inst *ck_instantiate_signature(checker *ck, ck_func *cf, const ast_name_part *explicit_args, en_loc loc,
                                  bool *hard_error) {
    return instantiate(ck, cf, explicit_args, NULL, 0, loc, hard_error);
}

ck_inst *ck_instantiate(checker *ck, ck_func *cf, const ast_name_part *explicit_args, en_loc loc,
                        bool *hard_error) {
    ck_inst *inst = instantiate(ck, cf, explicit_args, NULL, 0, loc, hard_error);
    if (inst) ck_instantiate_body(ck, cf, inst, loc);
    return inst;
}

/* the body of a chosen instantiation, checked once */
void ck_instantiate_body(checker *ck, ck_func *cf, ck_inst *inst, en_loc use) {
    if (inst->body_checked) return;
    inst->body_checked = true;
    const ast_decl *d = inst->d ? inst->d : cf->d;
    if (!d->body) {
        en_error(ck->diags, use, "function template '%s' is called but never defined", cf->qname);
        return;
    }
    ck->inst_depth++;
    int depth = ck->inst_depth;
    bool was_in_template = ck->in_template;
    ck->in_template = true;
    function_body(ck, d, inst->fn, inst, false, inst->tscope, cf->ns);
    ck->in_template = was_in_template;
    ck->inst_depth = depth - 1;
}

/* ---- calls ------------------------------------------------------------------------------------- */
typedef struct candidate {
    ck_func *cf;
    ck_inst *inst;
    ck_rank ranks[32];
} candidate;

static ck_rank arg_rank(checker *ck, ir_expr *a, ir_type *pt, bool is_ref) {
    if (is_ref) {
        /* T& binds a place of type T in the reference's address space (device T& takes a
         * device place, not a threadgroup one: MLX overloads on it); const T& also takes
         * a converted value */
        if (a->type == pt->elem && ir_is_place(a) && a->kind != IR_E_SWIZZLE) {
            bool is_const;
            ir_space sp = ck_place_space(a, &is_const);
            if (sp == pt->space || pt->space == IR_SPACE_THREAD) return CK_RANK_EXACT;
            if (!pt->is_const) return CK_RANK_NONE;
        }
        if (pt->is_const) {
            ck_rank r = ck_conv_rank(a->type, pt->elem, ck_is_const(a));
            return r;
        }
        return CK_RANK_NONE;
    }
    if (a->type->kind == IR_T_ARRAY && pt->kind == IR_T_PTR && a->type->elem == pt->elem && ir_is_place(a)) {
        bool is_const;
        ir_space sp = ck_place_space(a, &is_const);
        /* the constant address space is read-only whether or not `const` is written */
        if (sp != pt->space || (is_const && !pt->is_const && sp != IR_SPACE_CONSTANT)) return CK_RANK_NONE;
        return CK_RANK_EXACT;
    }
    (void)ck;
    ck_rank r = ck_conv_rank(a->type, pt, ck_is_const(a));
    /* a user-defined conversion (complex64_t to float through its operator U()) ranks as a
     * conversion; emit_call converts through it */
    if (r == CK_RANK_NONE && ck_struct_converts(ck, a, pt)) r = CK_RANK_CONVERSION;
    return r;
}

static bool rank_candidate(checker *ck, candidate *c, ck_inst *sig, const ast_decl *d, ir_expr **args, int n) {
    if (n > sig->param_count || n > 32) return false;
    for (int i = n; i < sig->param_count; i++)
        if (i >= d->params.count || !d->params.items[i].default_value) return false;
    for (int i = 0; i < n; i++) {
        c->ranks[i] = arg_rank(ck, args[i], sig->param_types[i], sig->param_is_ref[i]);
        if (c->ranks[i] == CK_RANK_NONE) return false;
    }
    return true;
}

/* -1: a better than b, 1: b better, 0: neither */
static int compare(const candidate *a, const candidate *b, int n) {
    bool a_better = false, b_better = false;
    for (int i = 0; i < n; i++) {
        if (a->ranks[i] < b->ranks[i]) a_better = true;
        if (b->ranks[i] < a->ranks[i]) b_better = true;
    }
    if (a_better && !b_better) return -1;
    if (b_better && !a_better) return 1;
    /* a non-template beats a template */
    bool at = a->cf->is_template || a->cf->from_template, bt = b->cf->is_template || b->cf->from_template;
    if (!at && bt) return -1;
    if (at && !bt) return 1;
    return 0;
}

static const char *candidate_text(checker *ck, ck_inst *sig, const ast_decl *d) {
    en_buf b = {0};
    en_buf_printf(&b, "%s(", sig->name ? sig->name : d->name);
    for (int i = 0; i < sig->param_count; i++) {
        if (i) en_buf_puts(&b, ", ");
        ir_type *t = sig->param_types[i];
        if (sig->param_is_ref[i] && t && t->kind == IR_T_PTR)
            en_buf_printf(&b, "%s %s%s&", ir_space_name(t->space), t->is_const ? "const " : "", ck_type_name(ck, t->elem));
        else
            en_buf_puts(&b, ck_type_name(ck, t));
    }
    en_buf_puts(&b, ")");
    const char *r = en_strdup(ck->a, b.data ? b.data : "");
    en_buf_free(&b);
    return r;
}

static const char *arg_types_text(checker *ck, ir_expr **args, int n) {
    en_buf b = {0};
    for (int i = 0; i < n; i++) {
        if (i) en_buf_puts(&b, ", ");
        en_buf_puts(&b, ck_type_name(ck, args[i]->type));
    }
    const char *r = en_strdup(ck->a, b.data ? b.data : "");
    en_buf_free(&b);
    return r;
}

/* the address of a reference parameter's argument as the parameter's pointer type (const
 * added, address space the same) */
static ir_expr *reference_to(checker *ck, ir_expr *addr, ir_type *pt, en_loc loc) {
    if (addr->type == pt) return addr;
    ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, pt, loc, 1);
    p->args[0] = addr;
    return p;
}

/* converts the arguments of a resolved call (filling default arguments), emits the
 * IR_S_CALL and returns the read of its result; this_arg is a method's object pointer */
static ir_expr *emit_call(checker *ck, const char *fname, ck_inst *sig, const ast_decl *d, ir_expr *this_arg,
                          ir_expr **args, en_loc *locs, int n, en_loc loc) {
    ir_func *callee = sig->fn;
    /* arguments, converted; default arguments filled in */
    int np = sig->param_count;
    int po = this_arg ? 1 : 0; /* IR parameter i is written parameter i - po */
    ir_expr **cargs = en_alloc(ck->a, sizeof(ir_expr *) * (size_t)(np + 1));
    if (this_arg) cargs[0] = this_arg;
    for (int i = po; i < np; i++) {
        ir_type *pt = sig->param_types[i];
        ir_expr *a;
        int w = i - po;
        en_loc al = w < n ? locs[w] : loc;
        if (w < n) {
            a = args[w];
        } else {
            if (w >= d->params.count || !d->params.items[w].default_value) return NULL;
            a = ck_expr_to(ck, d->params.items[w].default_value, sig->param_is_ref[i] ? pt->elem : pt);
            if (!a) return NULL;
        }
        if (sig->param_is_ref[i]) {
            if (a->type == pt->elem && ir_is_place(a) && a->kind != IR_E_SWIZZLE) {
                ir_expr *addr = ck_addr_of(ck, a, al);
                if (addr->type->space != pt->space) {
                    en_error(ck->diags, al, "argument %d of '%s' must be in %s memory, not %s", w + 1, fname,
                             ir_space_name(pt->space), ir_space_name(addr->type->space));
                    return NULL;
                }
                /* (constant memory is read-only whether or not the reference says const:
                 * MLX passes its `constant int&` arguments on as `constant int&`) */
                if (addr->type->is_const && !pt->is_const && pt->space != IR_SPACE_CONSTANT) {
                    en_error(ck->diags, al, "argument %d of '%s' is read-only but the parameter is a non-const reference",
                             w + 1, fname);
                    return NULL;
                }
                if (!pt->is_const) ck_mark_assigned(a);
                cargs[i] = reference_to(ck, addr, pt, al);
            } else {
                ir_expr *v = ck_implicit(ck, a, pt->elem, al);
                if (!v) return NULL;
                ir_expr *folded = pt->space == IR_SPACE_CONSTANT && pt->is_const ? ck_fold(ck, v) : NULL;
                ir_var *holder;
                if (folded && folded->kind == IR_E_CONST) {
                    /* a constant for a `const constant T&` (MLX's sort.h passes its program-scope
                     * `constant constexpr int zero_helper`, which folds to its value): a
                     * program-scope constant of its own to point to */
                    holder = ir_var_new(ck->m, NULL, en_fmt(ck->a, "__constant_argument_%d", ck->m->globals.count),
                                        pt->elem, al);
                    holder->storage = IR_VAR_CONSTANT;
                    holder->init = folded;
                    EN_PUSH(ck->m->arena, ck->m->globals, holder);
                } else if (pt->space != IR_SPACE_THREAD) {
                    en_error(ck->diags, al, "argument %d of '%s' must be a variable in %s memory", w + 1, fname,
                             ir_space_name(pt->space));
                    return NULL;
                } else {
                    holder = ck_temp_init(ck, pt->elem, v, al);
                }
                cargs[i] = reference_to(ck, ck_addr_of(ck, ir_var_ref(ck->m, holder, al), al), pt, al);
            }
        } else {
            cargs[i] = ck_implicit(ck, a, pt, al);
            if (!cargs[i]) return NULL;
        }
    }
    if (!this_arg && d && (d->specs & AST_SPEC_CONSTEXPR)) {
        ir_expr *value = ck_constexpr_call(ck, callee, cargs, np); /* constexpr_call.c */
        if (value) return value;
    }
    ir_stmt *s = ir_stmt_new(ck->m, IR_S_CALL, loc);
    s->callee = callee;
    s->args = cargs;
    s->arg_count = np;
    ir_type *ret = callee->return_type;
    if (ret && ret->kind != IR_T_VOID) {
        s->result = ck_temp(ck, ret, loc);
        ck_emit(ck, s);
        /* a function returning T& gives the place it points to */
        if (ck_returns_ref(ck, callee)) return ir_deref(ck->m, ir_var_ref(ck->m, s->result, loc), loc);
        return ir_var_ref(ck->m, s->result, loc);
    }
    ck_emit(ck, s);
    return ir_expr_new(ck->m, IR_E_CONST, ck_t(ck, IR_T_VOID), loc, 0);
}

/* ---- member functions ------------------------------------------------------------------- */
bool ck_has_method(checker *ck, const ir_type *t, const char *name) {
    for (int i = 0; i < ck->methods.count; i++)
        if (ck->methods.items[i]->owner == t && en_streq(ck->methods.items[i]->d->name, name)) return true;
    return false;
}

/* the member function for objects in `space`: `this` is its parameter 0 */
ck_inst *ck_method_inst(checker *ck, ck_func *cf, ir_space space) { return method_inst(ck, cf, space); }

static ck_inst *method_inst(checker *ck, ck_func *cf, ir_space space) {
    const ast_decl *d = cf->d;
    const char *name = space == IR_SPACE_THREAD ? cf->qname : en_fmt(ck->a, "%s[%s]", cf->qname, ir_space_name(space));
    for (int i = 0; i < cf->insts.count; i++)
        if (en_streq(cf->insts.items[i]->name, name)) return cf->insts.items[i];
    ck_fnctx saved = ck_save_fn(ck);
    ck->scope = cf->outer ? cf->outer : ck->globals;
    ck->ns = cf->ns;
    ck_inst written = {0};
    /* an instance of a member function template whose signature cannot be formed is no
     * candidate, quietly (SFINAE: MLX's `enable_if_t<is_integral_v<T>, T> operator()(T, T)`) */
    en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
    en_diags *loud = ck->diags;
    if (cf->from_template) ck->diags = &quiet;
    bool ok = resolve_constructor_or_method(ck, d, &written);
    ir_type *ret = !ok ? NULL : d->is_constructor ? ck_t(ck, IR_T_VOID) : sig_return(ck, d);
    ck->diags = loud;
    ck_restore_fn(ck, saved);
    if (!ok || !ret || quiet.errors) return NULL;
    ck_inst *inst = en_alloc(ck->a, sizeof *inst);
    inst->name = name;
    int n = written.param_count + 1;
    inst->param_count = n;
    inst->param_types = en_alloc(ck->a, sizeof(ir_type *) * (size_t)n);
    inst->param_is_ref = en_alloc(ck->a, sizeof(bool) * (size_t)n);
    inst->param_types[0] = ir_type_ptr(ck->m, cf->owner, space, d->is_const_method || space == IR_SPACE_CONSTANT);
    for (int i = 1; i < n; i++) {
        inst->param_types[i] = written.param_types[i - 1];
        inst->param_is_ref[i] = written.param_is_ref[i - 1];
    }
    ir_func *fn = ir_func_new(ck->m, name, d->loc);
    fn->return_type = ret;
    if (d->type && d->type->kind == AST_TYPE_REF) EN_PUSH(ck->a, ck->ref_funcs, fn);
    fn->param_count = n;
    fn->params = en_alloc(ck->a, sizeof(ir_var *) * (size_t)n);
    fn->params[0] = ir_var_new(ck->m, fn, "this", inst->param_types[0], d->loc);
    for (int i = 1; i < n; i++) {
        const ast_param *p = &d->params.items[i - 1];
        fn->params[i] = ir_var_new(ck->m, fn, p->name ? p->name : en_fmt(ck->a, "arg%d", i - 1),
                                   inst->param_types[i], p->loc);
        fn->params[i]->is_reference = inst->param_is_ref[i];
    }
    inst->fn = fn;
    EN_PUSH(ck->a, cf->insts, inst);
    return inst;
}

/* the body, with the fields of *this and the parameters in scope */
static void method_body(checker *ck, ck_func *cf, ck_inst *inst) {
    if (inst->body_checked) return;
    inst->body_checked = true;
    ir_func *fn = inst->fn;
    ck_fnctx saved = ck_save_fn(ck);
    ck->fn = fn;
    ck->block = fn->body;
    ck->scope = cf->outer ? cf->outer : ck->globals;
    ck->jumps = NULL;
    ck->control_depth = 0;
    ck->ret_type = fn->return_type;
    ck->is_kernel = false;
    ck->ns = cf->ns;
    ck->this_var = fn->params[0];
    /* a member of a class template's instance, or an instance of a member template: an
     * instantiation, whose discarded `if constexpr` branches are not checked */
    ck->in_template = cf->from_template || strchr(cf->owner->name, '<') != NULL;
    ck_push_scope(ck);
    for (int i = 0; i < cf->owner->field_count; i++) {
        ck_sym *f = ck_declare(ck, SYM_FIELD, cf->owner->fields[i].name, cf->d->loc);
        f->field = i;
    }
    ck_push_scope(ck);
    for (int i = 1; i < fn->param_count && i - 1 < cf->d->params.count; i++) {
        const ast_param *p = &cf->d->params.items[i - 1];
        if (!p->name) continue;
        ck_sym *ps = ck_declare(ck, SYM_VAR, p->name, p->loc);
        ps->var = fn->params[i];
        ps->is_ref = inst->param_is_ref[i];
    }
    ck->inst_depth++;
    if (cf->d->is_constructor) ck_member_inits(ck, cf->d, cf->owner);
    if (ck->inst_depth < MAX_INST_DEPTH) ck_body(ck, cf->d->body);
    ck_restore_fn(ck, saved);
}

ir_expr *ck_call_method(checker *ck, ir_expr *obj, const char *name, ir_expr **args, en_loc *locs, int n,
                        en_loc loc) {
    return ck_call_method_explicit(ck, obj, name, NULL, args, locs, n, loc);
}

ir_expr *ck_call_method_inst(checker *ck, ir_expr *obj, ck_func *cf, en_loc loc) {
    if (!ck->fn) return NULL;
    if (!ir_is_place(obj)) obj = ir_var_ref(ck->m, ck_temp_init(ck, obj->type, obj, loc), loc);
    bool obj_const;
    ir_space space = ck_place_space(obj, &obj_const);
    ck_inst *inst = method_inst(ck, cf, space);
    if (!inst || !cf->definition) return NULL;
    method_body(ck, cf, inst);
    ir_expr *self = ck_addr_of(ck, obj, loc);
    if (!cf->d->is_const_method) ck_mark_assigned(obj);
    if (self->type != inst->param_types[0]) {
        ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, inst->param_types[0], loc, 1);
        p->args[0] = self;
        self = p;
    }
    return emit_call(ck, cf->qname, inst, cf->d, self, NULL, NULL, 0, loc);
}

ir_expr *ck_call_method_explicit(checker *ck, ir_expr *obj, const char *name, const ast_name_part *explicit_args,
                                 ir_expr **args, en_loc *locs, int n, en_loc loc) {
    ir_type *st = obj->type;
    if (!ck->fn) {
        en_error(ck->diags, loc, "'%s' cannot be called outside a function", name);
        return NULL;
    }
    if (!ir_is_place(obj)) {
        ir_var *tmp = ck_temp_init(ck, st, obj, loc);
        obj = ir_var_ref(ck->m, tmp, loc);
    }
    bool obj_const;
    ir_space space = ck_place_space(obj, &obj_const);
    EN_VEC(candidate) all = {0};
    bool any = false, dropped_const = false;
    for (int i = 0; i < ck->methods.count; i++) {
        ck_func *cf = ck->methods.items[i];
        if (cf->owner != st || !en_streq(cf->d->name, name)) continue;
        any = true;
        /* `T f() threadgroup`: for objects in threadgroup memory only */
        if (cf->d->this_space != AST_AS_NONE && space_of(cf->d->this_space) != space) continue;
        if (obj_const && !cf->d->is_const_method) {
            dropped_const = true;
            continue;
        }
        if (explicit_args && !cf->is_template) continue;
        if (cf->is_template) {
            bool hard = false;
            cf = member_template_inst(ck, cf, explicit_args, args, n, &hard);
            if (hard) return NULL;
            if (!cf) continue;
        }
        ck_inst *inst = method_inst(ck, cf, space);
        if (!inst || n > inst->param_count - 1 || n > 32) continue;
        candidate c = {.cf = cf, .inst = inst};
        bool fits = true;
        for (int k = n + 1; k < inst->param_count; k++)
            if (!cf->d->params.items[k - 1].default_value) fits = false;
        for (int k = 0; fits && k < n; k++) {
            c.ranks[k] = arg_rank(ck, args[k], inst->param_types[k + 1], inst->param_is_ref[k + 1]);
            if (c.ranks[k] == CK_RANK_NONE) fits = false;
        }
        if (fits) EN_PUSH(ck->a, all, c);
    }
    const char *sname = ck_type_name(ck, st);
    if (!any) {
        /* a static member function called through an object (MLX: epilogue_op.apply(x)) */
        ck_sym *sf = ck_lookup_str(ck, en_fmt(ck->a, "%s::%s", st->name, name));
        if (sf && sf->kind == SYM_FUNC) return ck_call_user(ck, sf, NULL, args, locs, n, loc);
        /* a member function of a base class, called on the base part of the object */
        int field;
        for (int i = 0; ck_struct_base(ck, st, i, &field); i++) {
            ir_type *bt = ck_struct_base(ck, st, i, &field);
            if (!ck_has_method_inherited(ck, bt, name)) continue;
            ir_expr *part;
            if (field >= 0) {
                part = ir_expr_new(ck->m, IR_E_FIELD, bt, loc, 1);
                part->args[0] = obj;
                part->field = field;
            } else { /* an empty base: any object of it will do */
                part = ir_var_ref(ck->m, ck_temp(ck, bt, loc), loc);
            }
            return ck_call_method_explicit(ck, part, name, explicit_args, args, locs, n, loc);
        }
        en_error(ck->diags, loc, "no member function named '%s' in '%s'", name, sname);
        return NULL;
    }
    if (all.count == 0) {
        if (dropped_const)
            en_error(ck->diags, loc, "'%s::%s' is not a const member function; it cannot be called on read-only '%s'",
                     sname, name, sname);
        else
            en_error(ck->diags, loc, "no matching member function for call to '%s::%s' with arguments (%s)", sname,
                     name, arg_types_text(ck, args, n));
        return NULL;
    }
    int bi = 0;
    for (int i = 1; i < all.count; i++)
        if (compare(&all.items[i], &all.items[bi], n) < 0) bi = i;
    /* `T& at()` and `const T& at() const` tie on the arguments: the object's constness
     * decides (the implicit object parameter binds without a conversion to its own kind) */
    for (int i = 0; i < all.count; i++)
        if (i != bi && compare(&all.items[bi], &all.items[i], n) == 0 &&
            all.items[i].cf->d->is_const_method == obj_const && all.items[bi].cf->d->is_const_method != obj_const)
            bi = i;
    for (int i = 0; i < all.count; i++) {
        if (i != bi && compare(&all.items[bi], &all.items[i], n) >= 0 &&
            all.items[i].cf->d->is_const_method == all.items[bi].cf->d->is_const_method) {
            en_error(ck->diags, loc, "call to '%s::%s' is ambiguous", sname, name);
            return NULL;
        }
    }
    candidate best = all.items[bi];
    if (!best.cf->definition) {
        en_error(ck->diags, loc, "member function '%s::%s' is called but never defined", sname, name);
        return NULL;
    }
    method_body(ck, best.cf, best.inst);
    ir_expr *self = ck_addr_of(ck, obj, loc);
    if (!best.cf->d->is_const_method) ck_mark_assigned(obj);
    if (self->type != best.inst->param_types[0]) {
        ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, best.inst->param_types[0], loc, 1);
        p->args[0] = self;
        self = p;
    }
    return emit_call(ck, best.cf->qname, best.inst, best.cf->d, self, args, locs, n, loc);
}

ir_expr *ck_call_user(checker *ck, ck_sym *fs, const ast_name *name, ir_expr **args, en_loc *locs, int n,
                      en_loc loc) {
    const char *fname = fs->name;
    if (!ck->fn) {
        ir_expr *value = ck_call_at_program_scope(ck, fs, name, args, locs, n, loc); /* constexpr_call.c */
        if (!value)
            en_error(ck->diags, loc, "'%s' cannot be called outside a function (only constexpr functions "
                     "with constant arguments can)", fname);
        return value;
    }
    bool only_kernels = fs->funcs != NULL;
    for (ck_func *cf = fs->funcs; cf; cf = cf->next) only_kernels = only_kernels && cf->is_kernel;
    if (only_kernels) {
        en_error(ck->diags, loc, "kernel '%s' cannot be called; move the shared code into a helper function", fname);
        return NULL;
    }
    const ast_name_part *last = name && name->count > 0 ? &name->parts[name->count - 1] : NULL;
    /* a call through a function-pointer parameter pinned to one instance calls it alone */
    ck_func *pinned = fs->fptr_func;
    if (pinned) last = NULL;
    candidate best = {0}, *cands = NULL;
    int viable = 0, total = 0;
    EN_VEC(candidate) all = {0};
    bool hard_error = false;
    for (ck_func *cf = fs->funcs; cf; cf = cf->next) {
        if (cf->is_kernel || (pinned && cf != pinned)) continue;
        total++;
        candidate c = {.cf = cf};
        if (cf->is_template) {
            ck_inst *inst = pinned ? fs->fptr_inst : instantiate(ck, cf, last, args, n, loc, &hard_error);
            if (hard_error) return NULL;
            if (!inst || !rank_candidate(ck, &c, inst, cf->d, args, n)) continue;
            c.inst = inst;
        } else {
            if (last && last->has_targs) continue;
            if (!cf->sig.fn || !rank_candidate(ck, &c, &cf->sig, cf->d, args, n)) continue;
            c.inst = &cf->sig;
        }
        EN_PUSH(ck->a, all, c);
    }
    viable = all.count;
    cands = all.items;
    if (viable == 0) {
        en_error(ck->diags, loc, "no matching function for call to '%s' with arguments (%s)", fname,
                 arg_types_text(ck, args, n));
        for (ck_func *cf = fs->funcs; cf; cf = cf->next)
            if (cf->is_kernel)
                continue;
            else if (!cf->is_template && cf->sig.fn)
                en_note(ck->diags, cf->d->loc, "candidate: %s", candidate_text(ck, &cf->sig, cf->d));
            else if (cf->is_template && ck_template_has_pack(cf->d))
                en_note(ck->diags, cf->d->loc, "candidate '%s' is a variadic template, which enigma does not instantiate",
                        cf->qname);
            else if (cf->is_template)
                en_note(ck->diags, cf->d->loc, "candidate template '%s' does not fit", cf->qname);
        (void)total;
        return NULL;
    }
    int bi = 0;
    for (int i = 1; i < viable; i++)
        if (compare(&cands[i], &cands[bi], n) < 0) bi = i;
    for (int i = 0; i < viable; i++) {
        if (i == bi) continue;
        if (compare(&cands[bi], &cands[i], n) >= 0) {
            en_error(ck->diags, loc, "call to '%s' is ambiguous: '%s' and '%s' fit equally well", fname,
                     candidate_text(ck, cands[bi].inst, cands[bi].cf->d),
                     candidate_text(ck, cands[i].inst, cands[i].cf->d));
            return NULL;
        }
    }
    best = cands[bi];
    ck_inst *sig = best.inst;
    if (!best.cf->is_template && !best.cf->used) {
        best.cf->used = true;
        best.cf->use_loc = loc;
    }
    if (best.cf->is_template) ck_instantiate_body(ck, best.cf, best.inst, loc);
    return emit_call(ck, fname, sig, best.cf->d, NULL, args, locs, n, loc);
}

ck_viability ck_user_viable(checker *ck, ck_sym *fs, const ast_name *name, ir_expr **args, int n, en_loc loc) {
    const ast_name_part *last = name && name->count > 0 ? &name->parts[name->count - 1] : NULL;
    ck_viability best = CK_NOT_VIABLE;
    for (ck_func *cf = fs->funcs; cf; cf = cf->next) {
        if (cf->is_kernel) continue;
        candidate c = {.cf = cf};
        bool fits = false;
        if (cf->is_template) {
            bool hard_error = false;
            ck_inst *inst = instantiate(ck, cf, last, args, n, loc, &hard_error);
            if (hard_error) return CK_VIABLE_EXACT; /* let the call report it */
            fits = inst && rank_candidate(ck, &c, inst, cf->d, args, n);
        } else {
            fits = !(last && last->has_targs) && cf->sig.fn && rank_candidate(ck, &c, &cf->sig, cf->d, args, n);
        }
        if (!fits) continue;
        bool exact = true;
        for (int k = 0; k < n && k < 32; k++) exact = exact && c.ranks[k] == CK_RANK_EXACT;
        if (exact) return CK_VIABLE_EXACT;
        best = CK_VIABLE_CONVERTED;
    }
    return best;
}

static void drop_func(ir_module *m, const ir_func *fn) {
    int k = 0;
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i] != fn) m->funcs.items[k++] = m->funcs.items[i];
    m->funcs.count = k;
}

void ck_check_definitions(checker *ck) {
    for (int i = 0; i < ck->methods.count; i++) {
        ck_func *cf = ck->methods.items[i];
        for (int k = 0; k < cf->insts.count; k++)
            if (!cf->insts.items[k]->body_checked) drop_func(ck->m, cf->insts.items[k]->fn);
    }
    for (ck_sym *s = ck->globals->syms; s; s = s->next) {
        if (s->kind != SYM_FUNC) continue;
        for (ck_func *cf = s->funcs; cf; cf = cf->next) {
            if (!cf->is_template && cf->used && !cf->definition)
                en_error(ck->diags, cf->use_loc, "function '%s' is called but never defined", cf->qname);
            /* instantiations that overload resolution considered but never chose */
            for (int i = 0; i < cf->insts.count; i++)
                if (!cf->insts.items[i]->body_checked) drop_func(ck->m, cf->insts.items[i]->fn);
        }
    }
}

/* ---- declarations --------------------------------------------------------------------------------- */
static void namespace_decl(checker *ck, const ast_decl *d) {
    if (ck->fn) {
        en_error(ck->diags, d->loc, "namespaces cannot be declared inside a function");
        return;
    }
    const char *saved = ck->ns;
    if (d->name) ck->ns = ck->ns[0] ? en_fmt(ck->a, "%s::%s", ck->ns, d->name) : d->name;
    for (int i = 0; i < d->decls.count; i++) ck_decl(ck, d->decls.items[i], true);
    ck->ns = saved;
}

static void using_namespace(checker *ck, const ast_decl *d) {
    const char *n = ast_name_str(ck->a, &d->target);
    while (n && strncmp(n, "::", 2) == 0) n += 2;
    if (!n || en_streq(n, "metal") || strncmp(n, "metal::", 7) == 0) return; /* built in */
    /* relative to the current namespace when that exists */
    const char *q = ck->ns[0] ? en_fmt(ck->a, "%s::%s", ck->ns, n) : n;
    bool found_rel = false;
    for (ck_sym *s = ck->globals->syms; s; s = s->next)
        if (strncmp(s->name, q, strlen(q)) == 0 && strncmp(s->name + strlen(q), "::", 2) == 0) found_rel = true;
    EN_PUSH(ck->a, ck->usings, found_rel ? q : n);
}

/* may e run a user function (a call, or a construction that may run a constructor)? */
static bool calls_a_function(const ast_expr *e, int depth) {
    if (!e || depth > 64) return false;
    if (e->kind == AST_EXPR_CALL || e->kind == AST_EXPR_CONSTRUCT) return true;
    if (calls_a_function(e->lhs, depth + 1) || calls_a_function(e->rhs, depth + 1) ||
        calls_a_function(e->operand, depth + 1) || calls_a_function(e->cond, depth + 1))
        return true;
    for (int i = 0; i < e->args.count; i++)
        if (calls_a_function(e->args.items[i], depth + 1)) return true;
    return false;
}

static void static_assert_decl(checker *ck, const ast_decl *d) {
    int64_t v;
    if (!ck->fn && calls_a_function(d->cond, 0)) {
        /* MLX asserts facts about its constexpr operators at program scope; enigma evaluates
         * constexpr functions whose body is one `return` over constants and constant struct
         * objects (constexpr_call.c); an assertion that needs more is left unchecked (said
         * once per assertion), rather than refusing the file */
        en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
        en_diags *loud = ck->diags;
        ck->diags = &quiet;
        bool ok = ck_const_expr(ck, d->cond, &v, "a static_assert condition");
        ck->diags = loud;
        if (!ok) {
            en_warning(ck->diags, d->loc, "static_assert not checked: its condition calls functions that enigma "
                                          "cannot evaluate while compiling (it evaluates constexpr functions "
                                          "whose body is one return statement)");
            return;
        }
    } else if (!ck_const_expr(ck, d->cond, &v, "a static_assert condition")) {
        return;
    }
    if (!v) {
        if (d->message && d->message->text) {
            /* the literal's spelling, without its quotes */
            const char *t = d->message->text;
            int n = (int)strlen(t);
            if (n >= 2 && t[0] == '"' && t[n - 1] == '"') t++, n -= 2;
            en_error(ck->diags, d->loc, "static assertion failed: %.*s", n, t);
        }
        else
            en_error(ck->diags, d->loc, "static assertion failed");
    }
}

/* a second variable of one name in one scope is an error (C++ [basic.scope]) */
static bool redeclared(checker *ck, const char *name, en_loc loc) {
    const char *q = ck->scope == ck->globals ? ck_qualify(ck, name) : name;
    for (ck_sym *s = ck_find_in_scope(ck->scope, q); s; s = s->older_same_name) {
        if (s->kind != SYM_VAR && s->kind != SYM_CONST) continue;
        en_error(ck->diags, loc, "redefinition of '%s'", name);
        return true;
    }
    return false;
}

void ck_decl(checker *ck, const ast_decl *d, bool at_program_scope) {
    if (!d) return;
    switch (d->kind) {
    case AST_DECL_ERROR: return;
    case AST_DECL_VAR: {
        if (!d->name) return;
        if (d->is_template) {
            ck_var_template_decl(ck, d);
            return;
        }
        if (redeclared(ck, d->name, d->loc)) return;
        ck_sym *before = ck->scope->syms;
        if (at_program_scope && !ck->fn) program_var(ck, d);
        else local_var(ck, d);
        /* a declaration that failed still declares its name, silently, so that its uses
         * do not each report "undeclared" */
        if (ck->scope->syms == before) ck_declare(ck, SYM_VAR, d->name, d->loc);
        return;
    }
    case AST_DECL_FUNC: function_decl(ck, d); return;
    case AST_DECL_STRUCT: case AST_DECL_ENUM: case AST_DECL_TYPEDEF: {
        ck_sym *before = ck->scope->syms;
        if (d->kind == AST_DECL_STRUCT) struct_decl(ck, d);
        else if (d->kind == AST_DECL_ENUM) enum_decl(ck, d);
        else typedef_decl(ck, d);
        /* (a class template's definition after its declaration, or a specialization,
         * declares no name: the template has it) */
        bool template_struct = d->kind == AST_DECL_STRUCT && d->is_template;
        if (ck->scope->syms == before && d->name && !template_struct) ck_declare(ck, SYM_TYPE, d->name, d->loc);
        return;
    }
    case AST_DECL_NAMESPACE: namespace_decl(ck, d); return;
    case AST_DECL_USING_NAMESPACE: using_namespace(ck, d); return;
    case AST_DECL_USING: return; /* using metal::min; — names resolve the same way */
    case AST_DECL_STATIC_ASSERT: static_assert_decl(ck, d); return;
    case AST_DECL_EXPLICIT_INST: ck_explicit_inst(ck, d); return;
    }
}
