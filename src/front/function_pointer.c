/* function_pointer.c — function pointers, resolved while checking.
 *
 * enigma's IR has no function values: every call in it is direct, which is what lets a
 * GPU backend inline everything. MSL code passes functions around in one way that fits
 * that: as the argument of a template parameter of function-pointer type (MLX's FFT,
 * `template <..., RadixFunc<T> radix_func> void radix_butterfly(...)` called as
 * `radix_butterfly<..., radix4<T>>`, which calls `radix_func(x, y)`). The value of such a
 * parameter is known in each instantiation, so a call through it is a direct call.
 *
 * What this file gives the checker:
 *   - Function-pointer types: `typedef R (*F)(params);`, `using F = R (*)(params);` and
 *     alias templates of them (`template <typename T> using F = R (*)(T*);`) declare F as a
 *     function type (a SYM_TYPE with func_type_of set and no ir_type) that is a pointer;
 *     the parser marks them (ast_decl.func_type_is_pointer).
 *   - Binding a template parameter of function type to its argument (ck_fptr_bind): the
 *     argument names a function — `f`, `f<float>`, `&f<float>`, or a parameter bound this
 *     way before, whose function it passes on. It is pinned to one function instance there,
 *     in the caller's scope, when it can be: one overload with the parameter count of the
 *     pointer type, a template instantiated by the written arguments alone. A pinned
 *     argument names the instantiation it makes (`radix_butterfly<float, 4, radix4<float>>`)
 *     and calls through the parameter call the pinned instance (ck_call_user). An argument
 *     that needs deduction from the call's arguments (a template written without all of its
 *     arguments, an overload set) stays the overload set, resolved at each call.
 *   - Everything else that would need a function as a run-time value — a variable, array,
 *     function parameter or member of function-pointer type, a function named other than
 *     in a call or a template argument — is refused where it is written, saying so.
 *
 * Needs: the overload set of the argument's name (check_decl.c's scopes) and its template
 * instantiation (ck_instantiate_signature). Guarantees: a pinned binding's instance has its
 * signature formed (its body is checked at the first call, as any chosen instance's); no
 * ir_type or IR node for a function value is ever made. */
#include "check.h"

#include <string.h>

/* how many parameters functions of the pointer type ft take; -1 when unknown */
static int pointer_type_arity(const ck_sym *ft) { return ft ? ft->func_type_params : -1; }

/* the functions among set fs a pointer of type ft may point to */
static int fitting_overloads(const ck_sym *fs, const ck_sym *ft, ck_func **only) {
    int count = 0, arity = pointer_type_arity(ft);
    for (ck_func *f = fs->funcs; f; f = f->next) {
        if (f->is_kernel || (arity >= 0 && f->d && f->d->params.count != arity)) continue;
        count++;
        *only = f;
    }
    return count;
}

/* the name a function argument is written with: `f<float>` of `f<float>` or `&f<float>` */
static const ast_name *argument_name(const ast_targ *ta) {
    const ast_expr *e = ta->expr;
    if (e && e->kind == AST_EXPR_UNARY && e->op == AST_OP_ADDR) e = e->operand;
    return e && e->kind == AST_EXPR_NAME ? &e->name : NULL;
}

bool ck_fptr_bind(checker *ck, const ast_targ *ta, const ck_sym *ft, ck_scope *caller, ck_targ *out,
                  bool *fits) {
    *fits = false;
    const ast_name *name = argument_name(ta);
    ck_scope *here = ck->scope;
    if (caller) ck->scope = caller;
    ck_sym *fs = name ? ck_lookup(ck, name) : NULL;
    ck->scope = here;
    if (!fs || fs->kind != SYM_FUNC) return false;
    ck_func *only = NULL;
    int fitting = fitting_overloads(fs, ft, &only);
    if (!fitting) return true; /* another template may fit */
    *fits = true;
    out->func = fs;
    out->func_name = fs->called_as ? fs->called_as : name;
    if (fs->fptr_func) { /* a parameter bound before: its function, passed on */
        out->fptr_func = fs->fptr_func;
        out->fptr_inst = fs->fptr_inst;
        return true;
    }
    if (fitting != 1) return true; /* resolved per call */
    const ast_name_part *last = &name->parts[name->count - 1];
    if (!only->is_template) {
        if (last->has_targs || !only->sig.fn) return true;
        out->fptr_func = only;
        out->fptr_inst = &only->sig;
        return true;
    }
    if (!last->has_targs) return true; /* deduced from each call's arguments */
    /* the written arguments alone, in the caller's scope: a template they do not bind
     * completely stays the overload set, deduced per call */
    ck->scope = caller ? caller : here;
    bool hard = false;
    en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
    en_diags *loud = ck->diags;
    ck->diags = &quiet;
    ck_inst *inst = ck_instantiate_signature(ck, only, last, ta->loc, &hard);
    ck->diags = loud;
    ck->scope = here;
    if (!inst || quiet.errors) return true;
    out->fptr_func = only;
    out->fptr_inst = inst;
    return true;
}

const char *ck_fptr_binding_text(checker *ck, const ck_targ *v) {
    if (v->fptr_inst) return v->fptr_func->is_template ? v->fptr_inst->name : v->fptr_func->qname;
    return v->func_name ? ast_name_str(ck->a, v->func_name) : v->func->name;
}

const char *ck_fptr_type_refusal(checker *ck, const ck_sym *s, const char *written) {
    if (!s->func_type_is_pointer)
        return en_fmt(ck->a, "'%s' is the type of function '%s'; only an explicit instantiation can use it", written,
                      s->func_type_of);
    return en_fmt(ck->a,
                  "'%s' is a function-pointer type: enigma resolves function pointers while compiling, so one "
                  "can only be the type of a template parameter whose argument names a function",
                  written);
}
