/* template.c — the template forms that name instantiations from outside a call:
 *   - explicit instantiations `template [[host_name("k_f32")]] kernel k_t k<float>;` (the way
 *     ggml and MLX give kernel templates their host names) and `template void f<int>(int);`
 *   - explicit specializations `template<> float f<float>(float x) {...}`
 *   - decltype: of a variable or constant (its declared type), of an expression inside a
 *     function (its type, the operand unevaluated), and `typedef decltype(f<float>) f_t;`,
 *     the type of a function template specialisation, which only an explicit instantiation
 *     may use (enigma's IR has no function types).
 *
 * Needs: check_decl.c's binding of template parameters (ck_bind_targs, ck_template_scope)
 * and its kernel builder (ck_kernel_build). Guarantees: each explicit instantiation of a
 * kernel template becomes one kernel ir_func named by its host name, its body checked with
 * the template parameters bound (as `if constexpr` in a template: the branch not taken is
 * left out); every refusal names the construct and its location. */
#include "check.h"

#include <string.h>

static const char *attr_base_name(const ast_attr *a) {
    const char *n = a->name ? a->name : "";
    if (strncmp(n, "metal::", 7) == 0) n += 7;
    return n;
}

/* the string of [[host_name("...")]], without its quotes; NULL when absent (or after an
 * error, reported) */
const char *ck_host_name(checker *ck, const ast_attrs *attrs, bool *bad) {
    for (int i = 0; i < attrs->count; i++) {
        const ast_attr *a = &attrs->items[i];
        if (!en_streq(attr_base_name(a), "host_name")) continue;
        const ast_expr *e = a->args.count == 1 ? a->args.items[0] : NULL;
        size_t len = e && e->kind == AST_EXPR_STRING && e->text ? strlen(e->text) : 0;
        if (len < 3 || e->text[0] != '"' || e->text[len - 1] != '"') {
            en_error(ck->diags, a->loc, "[[host_name]] needs one non-empty string literal");
            *bad = true;
            return NULL;
        }
        for (size_t k = 1; k + 1 < len; k++) {
            char c = e->text[k];
            bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (k > 1 && c >= '0' && c <= '9');
            if (!ok) {
                en_error(ck->diags, e->loc, "host name %s is not an identifier", e->text);
                *bad = true;
                return NULL;
            }
        }
        return en_fmt(ck->a, "%.*s", (int)(len - 2), e->text + 1);
    }
    return NULL;
}

static bool has_kernel_attr(const ast_decl *d) {
    if (d->specs & AST_SPEC_KERNEL) return true;
    for (int i = 0; i < d->attrs.count; i++)
        if (en_streq(attr_base_name(&d->attrs.items[i]), "kernel")) return true;
    return false;
}

/* one kernel template instantiated under bindings b as kernel `host` */
static void build_kernel(checker *ck, ck_func *cf, const ck_binding *b, const char *host, const ast_decl *d) {
    if (ir_module_kernel(ck->m, host)) {
        en_error(ck->diags, d->loc, "kernel '%s' is defined twice", host);
        return;
    }
    ck_fnctx saved = ck_save_fn(ck);
    ck->fn = NULL;
    ck->ns = cf->ns;
    ck_scope *tscope = ck_template_scope(ck, cf->d, b);
    ck->scope = tscope;
    ck_inst *sig = en_alloc(ck->a, sizeof *sig);
    sig->name = host;
    sig->tscope = tscope;
    sig->body_checked = true;
    ck_kernel_build(ck, cf->d, sig, host, tscope, cf->ns, &d->attrs);
    EN_PUSH(ck->a, cf->insts, sig);
    ck_restore_fn(ck, saved);
}

/* cf's parameters bound to the explicit arguments `args` (and defaults); NULL when they do
 * not fit, with *stop set when that was an error already reported */
/* the types an explicit instantiation's parameter list declares, as argument stand-ins that
 * template arguments can be deduced from (`template [[host_name("k")]] [[kernel]] void
 * f(const device float* in, ...);`), or NULL when it has none or one does not resolve */
static ir_expr **declared_arguments(checker *ck, const ast_decl *d, int *n) {
    *n = 0;
    if (!d || d->params.count == 0) return NULL;
    ir_expr **args = en_alloc(ck->a, sizeof(ir_expr *) * (size_t)d->params.count);
    en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
    en_diags *loud = ck->diags;
    ck->diags = &quiet;
    for (int i = 0; i < d->params.count; i++) {
        bool is_ref = false;
        ir_type *t = ck_decl_type(ck, d->params.items[i].type, &is_ref, false);
        if (!t) break;
        args[i] = ir_expr_new(ck->m, IR_E_CONST, is_ref && t->kind == IR_T_PTR ? t->elem : t, d->params.items[i].loc, 0);
        (*n)++;
    }
    ck->diags = loud;
    return *n == d->params.count ? args : NULL;
}

static ck_binding *bind_explicit(checker *ck, ck_func *cf, const ast_name_part *args, const ast_decl *inst,
                                 bool *stop) {
    int nb = cf->d->tparams.count;
    ck_binding *b = en_alloc(ck->a, sizeof(ck_binding) * (size_t)(nb + 1));
    bool hard = false;
    int errors_before = ck->diags->errors;
    int n = 0;
    ir_expr **declared = args && args->has_targs ? NULL : declared_arguments(ck, inst, &n);
    if (declared && n != cf->d->params.count) return NULL; /* another overload */
    if (ck_bind_targs(ck, cf->d, cf->qname, args, declared, n, b, &hard)) return b;
    *stop = hard || ck->diags->errors > errors_before;
    return NULL;
}

void ck_explicit_inst(checker *ck, const ast_decl *d) {
    const char *written = ast_name_str(ck->a, &d->target);
    const ast_name_part *last = d->target.count ? &d->target.parts[d->target.count - 1] : NULL;
    if (ck->fn) {
        en_error(ck->diags, d->loc, "an explicit instantiation must be at namespace scope ('%s')", written);
        return;
    }
    ck_sym *s = ck_lookup(ck, &d->target);
    if (!s) {
        en_error(ck->diags, d->loc, "explicit instantiation of unknown template '%s'", written);
        return;
    }
    if (s->kind != SYM_FUNC) {
        en_error(ck->diags, d->loc,
                 "explicit instantiation of '%s': only function and kernel templates can be explicitly instantiated",
                 written);
        return;
    }
    bool want_kernel = has_kernel_attr(d);
    bool bad = false;
    const char *host = ck_host_name(ck, &d->attrs, &bad);
    if (bad) return;
    int templates = 0;
    for (ck_func *cf = s->funcs; cf; cf = cf->next) {
        if (!cf->is_template) continue;
        templates++;
        if (cf->is_kernel != want_kernel && want_kernel) continue;
        bool stop = false;
        ck_binding *b = bind_explicit(ck, cf, last, d, &stop);
        if (stop) return;
        if (!b) continue;
        if (cf->is_kernel) {
            if (!host) {
                en_error(ck->diags, d->loc,
                         "the explicit instantiation of kernel template '%s' needs [[host_name(\"...\")]] to name it",
                         written);
                return;
            }
            build_kernel(ck, cf, b, host, d);
            return;
        }
        if (host)
            en_error(ck->diags, d->loc, "[[host_name]] names kernels; '%s' is not a kernel template", written);
        bool hard = false;
        ck_instantiate(ck, cf, last, d->loc, &hard);
        return;
    }
    if (!templates)
        en_error(ck->diags, d->loc, "explicit instantiation of '%s', which is not a template", written);
    else if (want_kernel)
        en_error(ck->diags, d->loc, "no kernel template '%s' takes the template arguments of '%s'",
                 s->name, written);
    else
        en_error(ck->diags, d->loc, "no template '%s' takes the template arguments of '%s'", s->name, written);
}

/* ---- explicit specializations ------------------------------------------------------------ */
void ck_add_specialization(checker *ck, ck_sym *set, const ast_decl *d) {
    const char *written = ast_name_str(ck->a, &d->spec_name);
    const ast_name_part *last = &d->spec_name.parts[d->spec_name.count - 1];
    if (d->tparams.count) {
        en_error(ck->diags, d->loc,
                 "partial specialization of function template '%s' is not allowed in C++ (overload it instead)",
                 written);
        return;
    }
    for (ck_func *cf = set->funcs; cf; cf = cf->next) {
        if (!cf->is_template || cf->d->params.count != d->params.count) continue;
        bool stop = false;
        ck_binding *b = bind_explicit(ck, cf, last, NULL, &stop);
        if (stop) return;
        if (!b) continue;
        const char *name = ck_binding_name(ck, cf->qname, b, cf->d->tparams.count);
        for (int i = 0; i < cf->insts.count; i++)
            if (en_streq(cf->insts.items[i]->name, name)) {
                en_error(ck->diags, d->loc, "specialization of '%s' after it was already used", name);
                return;
            }
        for (int i = 0; i < cf->spec_names.count; i++)
            if (en_streq(cf->spec_names.items[i], name) && d->body && cf->spec_decls.items[i]->body) {
                en_error(ck->diags, d->loc, "redefinition of specialization '%s'", name);
                return;
            }
        EN_PUSH(ck->a, cf->spec_names, name);
        EN_PUSH(ck->a, cf->spec_decls, d);
        return;
    }
    en_error(ck->diags, d->loc, "'%s' does not specialize any template '%s' declared before it", written,
             set->name);
}

const ast_decl *ck_find_specialization(const ck_func *cf, const char *inst_name) {
    const ast_decl *found = NULL;
    for (int i = 0; i < cf->spec_names.count; i++)
        if (en_streq(cf->spec_names.items[i], inst_name) && (!found || cf->spec_decls.items[i]->body))
            found = cf->spec_decls.items[i];
    return found;
}

/* ---- decltype ---------------------------------------------------------------------------------- */
bool ck_func_type_alias(checker *ck, const ast_decl *d) {
    if (d->is_func_type) {
        ck_sym *alias = ck_declare(ck, SYM_TYPE, d->name, d->loc);
        alias->func_type_of = d->name;
        alias->func_type_params = d->params.count;
        alias->func_type_is_pointer = d->func_type_is_pointer;
        return true;
    }
    const ast_type *t = d->type;
    if (!t || t->kind != AST_TYPE_DECLTYPE || !t->decltype_expr || t->decltype_expr->kind != AST_EXPR_NAME)
        return false;
    ck_sym *s = ck_lookup(ck, &t->decltype_expr->name);
    if (!s || s->kind != SYM_FUNC) return false;
    ck_sym *alias = ck_declare(ck, SYM_TYPE, d->name, d->loc);
    alias->func_type_of = ast_name_str(ck->a, &t->decltype_expr->name);
    alias->func_type_params = s->funcs && s->funcs->d ? s->funcs->d->params.count : -1;
    return true;
}

ir_type *ck_decltype(checker *ck, const ast_type *t) {
    const ast_expr *e = t->decltype_expr;
    if (!e) return NULL;
    if (e->kind == AST_EXPR_NAME) {
        ck_sym *s = ck_lookup(ck, &e->name);
        if (s && s->kind == SYM_FUNC) {
            en_error(ck->diags, t->loc,
                     "decltype(%s) is a function type; enigma accepts it only as `typedef decltype(f<...>) name;` "
                     "for an explicit instantiation",
                     ast_name_str(ck->a, &e->name));
            return NULL;
        }
        if (s && s->kind == SYM_VAR && s->var)
            return s->is_ref && s->var->type->kind == IR_T_PTR ? s->var->type->elem : s->var->type;
        if (s && s->kind == SYM_CONST && s->value) return s->value->type;
    }
    if (!ck->fn) {
        en_error(ck->diags, t->loc, "decltype of this expression is supported only inside a function");
        return NULL;
    }
    /* the operand is not evaluated: check it into a block that is then dropped */
    ir_stmt *saved = ck->block;
    ck->block = ir_stmt_new(ck->m, IR_S_BLOCK, t->loc);
    ir_expr *v = ck_rvalue(ck, e);
    ck->block = saved;
    return v ? v->type : NULL;
}

/* ---- variable and alias templates ---------------------------------------------------------------
 * `template <typename T> constexpr constant bool is_x_v = false;` with its partial
 * specializations, and `template <bool B> using bool_constant = integral_constant<bool, B>;`.
 * A use with arguments binds them against the primary (defaults filled in), picks a
 * specialization as class templates do (class.c), and evaluates the initializer (a
 * constant expression) or the aliased type in a scope binding the parameters; each
 * argument list is evaluated once. */
struct ck_other_template {
    const ast_decl *d;
    const char *qname, *ns;
    ck_scope *outer; /* where it was declared: a class template instance's scope for a member
                      * alias template (its definition names the class's parameters) */
    EN_VEC(const ast_decl *) specs;
    EN_VEC(const char *) names;
    EN_VEC(void *) results; /* ir_expr * (variables) or ir_type * (aliases) */
};

static ck_other_template *other_template_new(checker *ck, const ast_decl *d, ck_sym *s) {
    ck_other_template *t = en_alloc(ck->a, sizeof *t);
    t->d = d;
    t->qname = ck_qualify(ck, d->name);
    t->ns = ck->ns;
    t->outer = ck->scope;
    s->other_template = t;
    return t;
}

void ck_var_template_decl(checker *ck, const ast_decl *d) {
    if (d->spec_name.count) {
        ck_sym *s = ck_lookup(ck, &d->spec_name);
        if (!s || !s->other_template || s->kind != SYM_CONST) {
            en_error(ck->diags, d->loc, "'%s' is not a variable template declared before this specialization",
                     ast_name_str(ck->a, &d->spec_name));
            return;
        }
        EN_PUSH(ck->a, s->other_template->specs, d);
        return;
    }
    if (!d->init) {
        en_error(ck->diags, d->loc, "variable template '%s' needs an initializer", d->name);
        return;
    }
    other_template_new(ck, d, ck_declare(ck, SYM_CONST, d->name, d->loc));
}

void ck_alias_template_decl(checker *ck, const ast_decl *d) {
    other_template_new(ck, d, ck_declare(ck, SYM_TYPE, d->name, d->loc));
}

/* binds args against the primary; the declaration that serves them (primary or a
 * specialization) and its bindings; the instantiation's name in *name. NULL after an error. */
static const ast_decl *other_bind(checker *ck, ck_other_template *t, const ast_name_part *args, en_loc loc,
                                  ck_binding **out_b, const char **name) {
    const ast_decl *d = t->d;
    int nb = d->tparams.count;
    ck_binding *b = en_alloc(ck->a, sizeof(ck_binding) * (size_t)(nb + 1));
    bool hard = false;
    int errors_before = ck->diags->errors;
    if (ck_template_has_pack(d)) {
        en_error(ck->diags, loc, "variadic template '%s' cannot be instantiated by enigma", t->qname);
        return NULL;
    }
    if (!ck_bind_targs(ck, d, t->qname, args, NULL, 0, b, &hard)) {
        if (ck->diags->errors == errors_before)
            en_error(ck->diags, loc, "the template arguments do not fit template '%s' (%d parameters)", t->qname, nb);
        return NULL;
    }
    *name = ck_binding_name(ck, t->qname, b, nb);
    ck_binding *sb = NULL;
    const ast_decl *spec = ck_pick_specialization(ck, d, t->qname, t->ns, t->specs.items, t->specs.count, b, nb, &sb);
    *out_b = spec ? sb : b;
    return spec ? spec : d;
}

static void *cached(const ck_other_template *t, const char *name) {
    for (int i = 0; i < t->names.count; i++)
        if (en_streq(t->names.items[i], name)) return t->results.items[i];
    return NULL;
}

ir_expr *ck_var_template_value(checker *ck, ck_sym *s, const ast_name_part *args, en_loc loc) {
    ck_other_template *t = s->other_template;
    if (!args || !args->has_targs) {
        en_error(ck->diags, loc, "variable template '%s' needs template arguments", t->qname);
        return NULL;
    }
    ck_binding *b;
    const char *name;
    const ast_decl *d = other_bind(ck, t, args, loc, &b, &name);
    if (!d) return NULL;
    ir_expr *value = cached(t, name);
    if (!value) {
        ck_fnctx saved = ck_save_fn(ck);
        ir_stmt *block = ck->block;
        ck->fn = NULL;
        ck->ns = t->ns;
        ck->scope = ck_template_scope_in(ck, d, b, t->outer ? t->outer : ck->globals);
        bool is_ref = false;
        ir_type *vt = ck_decl_type(ck, d->type, &is_ref, false);
        ir_expr *init = vt && d->init ? ck_expr_to(ck, d->init, vt) : NULL;
        value = init ? ck_fold(ck, init) : NULL;
        if (init && (!value || value->kind != IR_E_CONST))
            en_error(ck->diags, d->init->loc, "the initializer of variable template '%s' must be a constant expression", name);
        ck_restore_fn(ck, saved);
        ck->block = block;
        if (!value || value->kind != IR_E_CONST) return NULL;
        EN_PUSH(ck->a, t->names, name);
        EN_PUSH(ck->a, t->results, value);
    }
    ir_expr *r = ir_expr_new(ck->m, IR_E_CONST, value->type, loc, 0);
    r->c = value->c;
    return r;
}

ir_type *ck_alias_template_type(checker *ck, ck_sym *s, const ast_name_part *args, en_loc loc) {
    ck_other_template *t = s->other_template;
    ck_binding *b;
    const char *name;
    const ast_decl *d = other_bind(ck, t, args, loc, &b, &name);
    if (!d) return NULL;
    ir_type *type = cached(t, name);
    if (!type) {
        ck_fnctx saved = ck_save_fn(ck);
        ck->fn = NULL;
        ck->ns = t->ns;
        ck->scope = ck_template_scope_in(ck, d, b, t->outer ? t->outer : ck->globals);
        bool is_ref = false;
        type = ck_decl_type(ck, d->type, &is_ref, false);
        ck_restore_fn(ck, saved);
        if (!type) return NULL;
        EN_PUSH(ck->a, t->names, name);
        EN_PUSH(ck->a, t->results, type);
    }
    return type;
}

/* ---- deduction through alias templates ---------------------------------------------------------
 * A parameter written with an alias template, `thread dtype_frag_t<Atype>& A` where
 * `template <typename U> using dtype_frag_t = vec<U, kElemsPerFrag>;` (MLX's attention MMA),
 * deduces what the alias's own parameters are from the argument type through the alias's
 * definition, then the pattern's arguments from those. */
bool ck_deduce_through_alias(checker *ck, ck_sym *s, const ast_name_part *p, ir_type *at, ck_binding *b, int nb) {
    const ast_decl *ad = s->other_template ? s->other_template->d : NULL;
    if (!ad || ad->kind != AST_DECL_TYPEDEF || !ad->type) return true;
    int na = ad->tparams.count;
    ck_binding *ab = en_alloc(ck->a, sizeof(ck_binding) * (size_t)(na + 1));
    for (int i = 0; i < na; i++) {
        ab[i].name = ad->tparams.items[i].name;
        ab[i].is_type = ad->tparams.items[i].is_type;
    }
    if (!ck_deduce(ck, ad->type, at, ab, na)) return false;
    return ck_deduce_targs(ck, p, ab, na, b, nb);
}
