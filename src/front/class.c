/* class.c — struct members beyond named fields: unions and anonymous members.
 *
 * A union has no IR type of its own: it lowers to a struct with one field, `__storage`, an
 * array of the unsigned scalar of the union's alignment, as large as its largest member,
 * so that its size and alignment (and those of structs holding it, e.g. ggml's quant
 * blocks in device buffers) are the ones MSL gives it. Reading or writing member m of a
 * union place u is then `*(T_m *)&u.__storage`, a pointer cast in u's address space.
 * An anonymous struct or union member (C11, `union { struct { half d, m; }; half2 dm; };`)
 * is a field named `__anonN`; a member name is looked up through such fields too.
 *
 * Needs: check_decl.c's struct_decl to collect the member types. Guarantees: a member
 * access yields an IR place (for a union member, a DEREF of a PTRCAST) whose type is the
 * member's; the union's members are remembered per IR struct type. */
#include "check.h"

#include <string.h>

struct ck_union_info {
    ir_type *t;
    ir_field *members; /* name and type; offsets are all 0 */
    int count;
};

static ck_union_info *union_info(checker *ck, const ir_type *t) {
    for (int i = 0; i < ck->unions.count; i++)
        if (ck->unions.items[i]->t == t) return ck->unions.items[i];
    return NULL;
}

void ck_union_layout(checker *ck, ir_type *t, ir_field *members, int n) {
    uint32_t size = 1, align = 1;
    for (int i = 0; i < n; i++) {
        if (members[i].type->size > size) size = members[i].type->size;
        if (members[i].type->align > align) align = members[i].type->align;
    }
    ir_type_kind unit = align >= 8 ? IR_T_U64 : align == 4 ? IR_T_U32 : align == 2 ? IR_T_U16 : IR_T_U8;
    if (align > 8) align = 8; /* vectors of 16 bytes: 8-byte units keep the size; see below */
    uint32_t count = (size + align - 1) / align;
    ir_field *storage = en_alloc(ck->a, sizeof *storage);
    storage->name = "__storage";
    storage->type = ir_type_array(ck->m, ck_t(ck, unit), count);
    t->fields = storage;
    t->field_count = 1;
    ir_struct_layout(t);
    /* a 16-byte-aligned member (float4) needs the union aligned as it is */
    uint32_t want = 1;
    for (int i = 0; i < n; i++)
        if (members[i].type->align > want) want = members[i].type->align;
    if (want > t->align) {
        t->align = want;
        t->size = (t->size + want - 1) / want * want;
    }
    ck_union_info *u = en_alloc(ck->a, sizeof *u);
    u->t = t;
    u->members = members;
    u->count = n;
    EN_PUSH(ck->a, ck->unions, u);
}

bool ck_is_anonymous_field(const char *name) { return strncmp(name, "__anon", 6) == 0; }

static ir_expr *field_of(checker *ck, ir_expr *obj, int i, en_loc loc) {
    ir_expr *f = ir_expr_new(ck->m, IR_E_FIELD, obj->type->fields[i].type, loc, 1);
    f->args[0] = obj;
    f->field = i;
    return f;
}

/* member `name` of the struct place obj, or NULL when it has none (no error) */
static ir_expr *member_of(checker *ck, ir_expr *obj, const char *name, en_loc loc, int depth) {
    ir_type *t = obj->type;
    if (t->kind != IR_T_STRUCT || depth > 16) return NULL;
    ck_union_info *u = union_info(ck, t);
    if (u) {
        for (int i = 0; i < u->count; i++) {
            bool anon = ck_is_anonymous_field(u->members[i].name);
            if (!anon && !en_streq(u->members[i].name, name)) continue;
            bool is_const;
            ir_space sp = ck_place_space(obj, &is_const);
            ir_expr *at = ck_addr_of(ck, field_of(ck, obj, 0, loc), loc);
            ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, ir_type_ptr(ck->m, u->members[i].type, sp, is_const), loc, 1);
            p->args[0] = at;
            ir_expr *m = ir_deref(ck->m, p, loc);
            if (!anon) return m;
            ir_expr *inner = member_of(ck, m, name, loc, depth + 1);
            if (inner) return inner;
        }
        return NULL;
    }
    for (int i = 0; i < t->field_count; i++)
        if (en_streq(t->fields[i].name, name)) return field_of(ck, obj, i, loc);
    for (int i = 0; i < t->field_count; i++) {
        if (!ck_is_anonymous_field(t->fields[i].name)) continue;
        ir_expr *inner = member_of(ck, field_of(ck, obj, i, loc), name, loc, depth + 1);
        if (inner) return inner;
    }
    return NULL;
}

ir_expr *ck_member(checker *ck, ir_expr *obj, const char *name, en_loc loc) {
    return member_of(ck, obj, name, loc, 0);
}

bool ck_is_union(checker *ck, const ir_type *t) { return union_info(ck, t) != NULL; }

/* ---- designated array initializers ----------------------------------------------------------- */
ir_expr *ck_designated_array(checker *ck, ir_type *t, const ast_expr *init, en_loc loc) {
    if (t->kind != IR_T_ARRAY) {
        en_error(ck->diags, init->loc, "array designators can only initialize an array, not '%s'", ck_type_name(ck, t));
        return NULL;
    }
    int want = (int)t->count;
    const ast_expr **slot = en_alloc(ck->a, sizeof *slot * (size_t)(want + 1));
    int next = 0;
    for (int i = 0; i < init->args.count; i++) {
        const ast_expr *a = init->args.items[i];
        int64_t lo = next, hi = next;
        const ast_expr *value = a;
        if (a->kind == AST_EXPR_DESIGNATOR) {
            if (!ck_const_expr(ck, a->lhs, &lo, "an array designator")) return NULL;
            hi = lo;
            if (a->rhs && !ck_const_expr(ck, a->rhs, &hi, "an array designator")) return NULL;
            value = a->operand;
        }
        if (lo < 0 || hi < lo || hi >= want) {
            en_error(ck->diags, a->loc, "array designator [%lld%s%lld] is outside '%s' (indices 0 to %d)",
                     (long long)lo, hi != lo ? " ... " : "", hi != lo ? (long long)hi : 0LL, ck_type_name(ck, t),
                     want - 1);
            return NULL;
        }
        for (int64_t k = lo; k <= hi; k++) slot[k] = value;
        next = (int)hi + 1;
    }
    ir_expr *agg = ir_expr_new(ck->m, IR_E_AGGREGATE, t, init->loc, want);
    ast_expr empty = {.kind = AST_EXPR_INIT_LIST, .loc = init->loc};
    for (int i = 0; i < want; i++) {
        agg->args[i] = ck_initializer(ck, t->elem, slot[i] ? slot[i] : &empty, loc);
        if (!agg->args[i]) return NULL;
    }
    return agg;
}

/* ---- class templates ---------------------------------------------------------------------------
 * `template <typename T, int N = 4> struct S {...};` declares S as a class template; each
 * distinct argument list `S<float, 2>` becomes its own IR struct named "S<float, 2>", its
 * members checked once in a scope binding the parameters (and S itself, the injected
 * class name, to the instantiation). Member functions see that scope when their bodies
 * are checked, whenever that is.
 *
 * Specializations, full (`template <> struct S<float> {...}`) and partial (`template
 * <typename T> struct S<vec<T, 2>> {...}`), are kept with their primary template. An
 * argument list is first bound against the primary (defaults filled in); a specialization
 * matches when its parameters can be deduced from those arguments and its own argument
 * pattern, rebuilt from them, gives exactly those arguments. Among the matches a full
 * specialization wins, then the one with the fewest parameters (C++'s partial ordering
 * for the patterns these libraries write: `S<T*>` against `S<T>`), then the first. */
struct ck_class_template {
    const ast_decl *d;     /* the definition (or the forward declaration until it comes) */
    const char *qname;
    const char *ns;
    EN_VEC(const ast_decl *) specs; /* specializations with a body, in declaration order */
    EN_VEC(const char *) names;
    EN_VEC(ir_type *) types;
    EN_VEC(const ck_binding *) args; /* each instantiation's arguments (the primary's) */
};

bool ck_class_instance_args(const ck_sym *ts, const ir_type *t, const ck_binding **args, int *count) {
    const ck_class_template *ct = ts->class_template;
    for (int i = 0; ct && i < ct->types.count; i++)
        if (ct->types.items[i] == t) {
            *args = ct->args.items[i];
            *count = ct->d->tparams.count;
            return true;
        }
    return false;
}

static void specialization_decl(checker *ck, const ast_decl *d) {
    ck_sym *s = ck_lookup(ck, &d->spec_name);
    if (!s || s->kind != SYM_TYPE || !s->class_template) {
        en_error(ck->diags, d->loc, "'%s' is not a class template declared before this specialization",
                 ast_name_str(ck->a, &d->spec_name));
        return;
    }
    if (d->has_body) EN_PUSH(ck->a, s->class_template->specs, d);
}

/* does specialization sd of template `primary` (named qname, declared in namespace ns)
 * take the primary's arguments b (nb)? its bindings go to sb */
static bool spec_matches(checker *ck, const ast_decl *primary, const char *qname, const char *ns_of,
                         const ast_decl *sd, const ck_binding *b, int nb, ck_binding *sb) {
    const ast_name_part *pat = &sd->spec_name.parts[sd->spec_name.count - 1];
    if (pat->targs.count > nb) return false; /* fewer: the primary's defaults complete it */
    int ns = sd->tparams.count;
    for (int k = 0; k < ns; k++)
        sb[k] = (ck_binding){.name = sd->tparams.items[k].name ? sd->tparams.items[k].name : "",
                             .is_type = sd->tparams.items[k].is_type};
    if (!ck_deduce_targs(ck, pat, b, nb, sb, ns)) return false;
    for (int k = 0; k < ns; k++)
        if (!sb[k].set) return false;
    /* the pattern rebuilt from the deduced bindings must give the arguments exactly; what
     * cannot be evaluated (enable_if<false>...) is no match, and no error */
    en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
    en_diags *loud = ck->diags;
    ck_fnctx saved = ck_save_fn(ck);
    ck->diags = &quiet;
    ck->fn = NULL;
    ck->ns = ns_of;
    ck->scope = ck_template_scope(ck, sd, sb);
    ck_binding *pb = en_alloc(ck->a, sizeof(ck_binding) * (size_t)(nb + 1));
    bool hard = false;
    bool ok = ck_bind_targs(ck, primary, qname, pat, NULL, 0, pb, &hard);
    for (int i = 0; i < nb && ok; i++)
        ok = b[i].is_type ? pb[i].value.type == b[i].value.type : pb[i].value.value == b[i].value.value;
    ok = ok && quiet.errors == 0;
    ck_restore_fn(ck, saved);
    ck->diags = loud;
    return ok;
}

const ast_decl *ck_pick_specialization(checker *ck, const ast_decl *primary, const char *qname, const char *ns,
                                      const ast_decl *const *specs, int nspecs, const ck_binding *b, int nb,
                                      ck_binding **sb) {
    const ast_decl *best = NULL;
    for (int i = 0; i < nspecs; i++) {
        const ast_decl *sd = specs[i];
        ck_binding *try_b = en_alloc(ck->a, sizeof(ck_binding) * (size_t)(sd->tparams.count + 1));
        if (!spec_matches(ck, primary, qname, ns, sd, b, nb, try_b)) continue;
        if (!best || sd->tparams.count < best->tparams.count) {
            best = sd;
            *sb = try_b;
        }
    }
    return best;
}

void ck_class_template_decl(checker *ck, const ast_decl *d) {
    if (!d->name) return;
    if (d->spec_name.count) {
        specialization_decl(ck, d);
        return;
    }
    ck_sym *s = ck_find_in_scope(ck->scope, ck->scope == ck->globals ? ck_qualify(ck, d->name) : d->name);
    if (s && s->kind == SYM_TYPE && s->class_template) {
        ck_class_template *ct = s->class_template;
        if (d->has_body && ct->d->has_body) {
            en_error(ck->diags, d->loc, "redefinition of class template '%s'", d->name);
            return;
        }
        if (d->has_body) ct->d = d;
        return;
    }
    if (s) {
        en_error(ck->diags, d->loc, "'%s' is already declared as something other than a class template", d->name);
        return;
    }
    ck_class_template *ct = en_alloc(ck->a, sizeof *ct);
    ct->d = d;
    ct->qname = ck_qualify(ck, d->name);
    ct->ns = ck->ns;
    s = ck_declare(ck, SYM_TYPE, d->name, d->loc);
    s->class_template = ct;
}

static void publish_members(checker *ck, const ir_type *owner, ck_scope *scope, ck_sym *before);

ir_type *ck_class_instantiate(checker *ck, ck_sym *ts, const ast_name_part *args, en_loc loc) {
    ck_class_template *ct = ts->class_template;
    const ast_decl *d = ct->d;
    int nb = d->tparams.count;
    ck_binding *b = en_alloc(ck->a, sizeof(ck_binding) * (size_t)(nb + 1));
    bool hard = false;
    int errors_before = ck->diags->errors;
    if (ck_template_has_pack(d)) {
        en_error(ck->diags, loc, "variadic class template '%s' cannot be instantiated by enigma", ct->qname);
        return NULL;
    }
    ck->defaults_ns = ct->ns;
    if (!ck_bind_targs(ck, d, ct->qname, args, NULL, 0, b, &hard)) {
        if (ck->diags->errors == errors_before) {
            en_error(ck->diags, loc, "the template arguments do not fit class template '%s' (%d parameters)",
                     ct->qname, nb);
            /* no overloads to choose among: what failed quietly is the reason */
            bool was = ck->explain_sfinae;
            ck->explain_sfinae = true;
            ck->defaults_ns = ct->ns;
            ck_bind_targs(ck, d, ct->qname, args, NULL, 0, b, &hard);
            ck->explain_sfinae = was;
        }
        return NULL;
    }
    const char *name = ck_binding_name(ck, ct->qname, b, nb);
    for (int i = 0; i < ct->names.count; i++)
        if (en_streq(ct->names.items[i], name)) return ct->types.items[i];
    if (ck->inst_depth >= 32) {
        en_error(ck->diags, loc, "template instantiation of '%s' is nested too deeply", name);
        return NULL;
    }
    ck_binding *sb = NULL;
    const ast_decl *spec =
        ck_pick_specialization(ck, ct->d, ct->qname, ct->ns, ct->specs.items, ct->specs.count, b, nb, &sb);
    if (spec) {
        d = spec;
        b = sb;
    } else if (!d->has_body) {
        en_error(ck->diags, loc, "class template '%s' is used before it is defined", ct->qname);
        return NULL;
    }
    ck_fnctx saved = ck_save_fn(ck);
    ck->fn = NULL;
    ck->ns = ct->ns;
    ck_scope *tscope = ck_template_scope(ck, d, b);
    ck->scope = tscope;
    ck->inst_depth++;
    ir_type *t = ir_type_struct(ck->m, name);
    EN_PUSH(ck->a, ct->names, name);
    EN_PUSH(ck->a, ct->types, t);
    EN_PUSH(ck->a, ct->args, b);
    ck_sym *self = ck_declare(ck, SYM_TYPE, d->name, d->loc); /* the injected class name */
    self->type = t;
    en_diags *speculative = ck->diags;
    if (ck->compile_diags) ck->diags = ck->compile_diags;
    /* static constants first, as nested structs may use them (MLX: `uint8_t v[sizeof(T) *
     * vec_size]`); then nested structs (the backends define structs in the module's order;
     * ck_struct_fill moves t after them) */
    for (int i = 0; i < d->members.count; i++) {
        const ast_decl *m = d->members.items[i];
        if (m && ((m->kind == AST_DECL_VAR && (m->specs & (AST_SPEC_STATIC | AST_SPEC_CONSTEXPR))) ||
                  m->kind == AST_DECL_TYPEDEF || m->kind == AST_DECL_ENUM))
            ck_static_member(ck, t, name, m); /* member types too: the constants may use them */
    }
    /* a nested struct is the instance's own: S<float, 4>::ReadVector, one per instance */
    const char *outer_ns = ck->ns;
    ck->ns = name;
    ck_sym *before_nested = ck->scope->syms;
    for (int i = 0; i < d->members.count; i++)
        if (d->members.items[i] && d->members.items[i]->kind == AST_DECL_STRUCT && d->members.items[i]->has_body)
            ck_decl(ck, d->members.items[i], false);
    ck->ns = outer_ns;
    publish_members(ck, t, ck->scope, before_nested);
    ck_struct_fill(ck, d, t, name);
    ck->diags = speculative;
    ck_restore_fn(ck, saved);
    return t;
}

void ck_struct_after_fields(checker *ck, ir_type *t) {
    int n = ck->m->structs.count, at = -1;
    for (int i = 0; i < n; i++)
        if (ck->m->structs.items[i] == t) at = i;
    if (at < 0) return;
    for (int i = at; i + 1 < n; i++) ck->m->structs.items[i] = ck->m->structs.items[i + 1];
    ck->m->structs.items[n - 1] = t;
}

/* ---- constructors ---------------------------------------------------------------------------------
 * A constructor is a member function returning void whose `this` is the object being made:
 * `S(a, b)`, `S x(a, b)`, `S x{a, b}`, `S x = v` (v not an S) and `S x;` build a thread
 * temporary or the variable and call the constructor overload resolution picks on it; its
 * member initializers are assignments to the fields before its body. Copies of an S stay
 * plain struct copies. */
static const ast_decl *constructor_of(checker *ck, const ir_type *t) {
    for (int i = 0; i < ck->methods.count; i++)
        if (ck->methods.items[i]->owner == t && ck->methods.items[i]->d->is_constructor) return ck->methods.items[i]->d;
    return NULL;
}

bool ck_has_constructor(checker *ck, const ir_type *t) { return constructor_of(ck, t) != NULL; }

ir_expr *ck_construct(checker *ck, ir_type *t, ir_expr **args, en_loc *locs, int n, en_loc loc) {
    const ast_decl *ctor = constructor_of(ck, t);
    if (!ck->fn) {
        /* at program scope: a constant, where the constructor only sets fields (constexpr_call.c) */
        ir_expr *value = ck_constexpr_construct(ck, t, args, locs, n, loc);
        if (!value)
            en_error(ck->diags, loc, "'%s' built outside a function: enigma evaluates only constructors that "
                     "set its fields from their arguments and constants", ck_type_name(ck, t));
        return value;
    }
    ir_var *tmp = ck_temp(ck, t, loc);
    ir_expr *place = ir_var_ref(ck->m, tmp, loc);
    if (!ck_call_method(ck, place, ctor->name, args, locs, n, loc)) return NULL;
    return ir_var_ref(ck->m, tmp, loc);
}

bool ck_has_member_defaults(checker *ck, const ir_type *owner) {
    for (int i = 0; i < ck->member_defaults.count; i++)
        if (ck->member_defaults.items[i].owner == owner) return true;
    return false;
}

void ck_member_defaults(checker *ck, ir_type *owner, ir_expr *obj, const ast_decl *except) {
    for (int i = 0; i < ck->member_defaults.count; i++) {
        const ck_member_default *md = &ck->member_defaults.items[i];
        if (md->owner != owner || md->field >= owner->field_count) continue;
        const char *fname = owner->fields[md->field].name;
        bool named = false;
        for (int k = 0; except && k < except->ctor_inits.count; k++)
            if (en_streq(ast_name_last(&except->ctor_inits.items[k]->callee->name), fname)) named = true;
        if (named) continue;
        /* the initializer is the struct's: its names resolve there (a template's
         * parameters, the static constants), its code goes where the object is made */
        ck_scope *saved_scope = ck->scope;
        const char *saved_ns = ck->ns;
        ck->scope = md->scope;
        ck->ns = md->ns;
        ir_expr *place = ir_expr_new(ck->m, IR_E_FIELD, owner->fields[md->field].type, md->init->loc, 1);
        place->args[0] = obj;
        place->field = md->field;
        ir_expr *v = ck_initializer(ck, place->type, md->init, md->init->loc);
        ck->scope = saved_scope;
        ck->ns = saved_ns;
        if (v) ck_emit(ck, ir_assign(ck->m, place, v, md->init->loc));
    }
}

/* ---- default initialisation (C++ [dcl.init], [class.base.init]) ------------------------------
 * `S x;` and a constructor that leaves a member out of its initializer list default-initialise:
 * a class with constructors runs its default one; a class without runs its default member
 * initializers and default-initialises its members of class type, arrays element by element.
 * Scalars stay as they are. MLX's steel GEMM depends on it: BlockMMA's constructor says nothing
 * of its MMATile members, whose `val_frags[] = {0}` must still zero the accumulators. */
static bool default_init_runs_code(checker *ck, const ir_type *t) {
    while (t->kind == IR_T_ARRAY) t = t->elem;
    if (t->kind != IR_T_STRUCT) return false;
    if (ck_has_constructor(ck, t) || ck_has_member_defaults(ck, t)) return true;
    for (int i = 0; i < t->field_count; i++)
        if (default_init_runs_code(ck, t->fields[i].type)) return true;
    return false;
}

/* the largest array whose elements are default-initialised one by one (larger ones would
 * need a loop; no target has them) */
#define EN_DEFAULT_INIT_ELEMENTS_MAX 256

static void default_init(checker *ck, ir_type *t, ir_expr *obj, en_loc loc) {
    if (!default_init_runs_code(ck, t)) return;
    if (t->kind == IR_T_ARRAY) {
        if (t->count > EN_DEFAULT_INIT_ELEMENTS_MAX) {
            en_error(ck->diags, loc, "not supported by enigma: default-initialising %u elements of '%s' that have "
                     "constructors (at most %d)", t->count, ck_type_name(ck, t->elem), EN_DEFAULT_INIT_ELEMENTS_MAX);
            return;
        }
        for (uint32_t i = 0; i < t->count; i++)
            default_init(ck, t->elem,
                         ir_index(ck->m, t->elem, obj, ir_const_int(ck->m, ck_t(ck, IR_T_I32), i, loc), loc), loc);
        return;
    }
    const ast_decl *ctor = constructor_of(ck, t);
    if (ctor) {
        ck_call_method(ck, obj, ctor->name, NULL, NULL, 0, loc);
        return;
    }
    ck_default_init_members(ck, t, obj, NULL, loc);
}

void ck_default_init_members(checker *ck, ir_type *owner, ir_expr *obj, const ast_decl *except, en_loc loc) {
    ck_member_defaults(ck, owner, obj, except);
    for (int f = 0; f < owner->field_count; f++) {
        ir_type *ft = owner->fields[f].type;
        if (!default_init_runs_code(ck, ft)) continue;
        bool handled = false;
        for (int i = 0; i < ck->member_defaults.count && !handled; i++)
            handled = ck->member_defaults.items[i].owner == owner && ck->member_defaults.items[i].field == f;
        for (int k = 0; except && k < except->ctor_inits.count && !handled; k++)
            handled = en_streq(ast_name_last(&except->ctor_inits.items[k]->callee->name), owner->fields[f].name);
        if (handled) continue;
        ir_expr *place = ir_expr_new(ck->m, IR_E_FIELD, ft, loc, 1);
        place->args[0] = obj;
        place->field = f;
        default_init(ck, ft, place, loc);
    }
}

void ck_member_inits(checker *ck, const ast_decl *ctor, ir_type *owner) {
    ck_default_init_members(ck, owner, ir_deref(ck->m, ir_var_ref(ck->m, ck->this_var, ctor->loc), ctor->loc), ctor,
                            ctor->loc);
    for (int i = 0; i < ctor->ctor_inits.count; i++) {
        const ast_expr *init = ctor->ctor_inits.items[i];
        const char *field = ast_name_last(&init->callee->name);
        ir_expr *self = ir_deref(ck->m, ir_var_ref(ck->m, ck->this_var, init->loc), init->loc);
        ir_expr *place = ck_member(ck, self, field, init->loc);
        if (!place) {
            en_error(ck->diags, init->loc, "'%s' is not a member of '%s'", field, ck_type_name(ck, owner));
            continue;
        }
        ir_expr *value;
        if (init->args.count == 1 && !init->brace) {
            value = ck_expr_to(ck, init->args.items[0], place->type);
        } else {
            ast_expr list = {.kind = AST_EXPR_INIT_LIST, .loc = init->loc, .args = init->args};
            value = ck_initializer(ck, place->type, &list, init->loc);
        }
        if (value) ck_emit(ck, ir_assign(ck->m, place, value, init->loc));
    }
}

/* ---- overloaded operators ----------------------------------------------------------------------- */
bool ck_wants_operator(ir_expr **args, int n) {
    for (int i = 0; i < n; i++)
        if (args[i] && args[i]->type->kind == IR_T_STRUCT) return true;
    return false;
}

ir_expr *ck_operator_call(checker *ck, const char *spelling, ir_expr **args, en_loc *locs, int n, en_loc loc) {
    const char *name = en_fmt(ck->a, "operator%s", spelling);
    if (args[0]->type->kind == IR_T_STRUCT && ck_has_method(ck, args[0]->type, name))
        return ck_call_method(ck, args[0], name, args + 1, locs + 1, n - 1, loc);
    ck_sym *s = ck_lookup_str(ck, name);
    /* an enclosing namespace's operators hide the global ones by name; where none of them
     * takes these operands, the global ones are looked at too (what argument-dependent
     * lookup finds for MLX's complex_t inside mlx::steel) */
    ck_sym *global = ck_find_in_scope(ck->globals, name);
    if (s && s->kind == SYM_FUNC && global && global != s && global->kind == SYM_FUNC &&
        ck_user_viable(ck, s, NULL, args, n, loc) == CK_NOT_VIABLE)
        s = global;
    if (s && s->kind == SYM_FUNC) return ck_call_user(ck, s, NULL, args, locs, n, loc);
    if (n == 1 && en_streq(spelling, "!") && args[0]->type->kind == IR_T_STRUCT) {
        /* !x of a struct with a conversion to bool (MLX's _NoMask) */
        ir_expr *b = ck_struct_conversion(ck, args[0], ck_t(ck, IR_T_BOOL), loc);
        if (b) return ir_unary(ck->m, IR_OP_NOT, ck_t(ck, IR_T_BOOL), b, loc);
    }
    if (n == 2)
        en_error(ck->diags, loc, "no operator '%s' for operands '%s' and '%s'", spelling, ck_type_name(ck, args[0]->type),
                 ck_type_name(ck, args[1]->type));
    else
        en_error(ck->diags, loc, "no operator '%s' for an operand of type '%s'", spelling,
                 ck_type_name(ck, args[0]->type));
    return NULL;
}

/* ---- functions returning references -------------------------------------------------------------- */
bool ck_returns_ref(checker *ck, const ir_func *fn) {
    for (int i = 0; fn && i < ck->ref_funcs.count; i++)
        if (ck->ref_funcs.items[i] == fn) return true;
    return false;
}

ir_expr *ck_ref_return_value(checker *ck, const ast_expr *e, ir_type *ptr_type) {
    ir_expr *place = ck_expr(ck, e);
    if (!place) return NULL;
    if (!ir_is_place(place) || place->kind == IR_E_SWIZZLE || place->type != ptr_type->elem) {
        en_error(ck->diags, e->loc, "a function returning a reference must return a variable of type '%s'",
                 ck_type_name(ck, ptr_type->elem));
        return NULL;
    }
    ir_expr *addr = ck_addr_of(ck, place, e->loc);
    if (addr->type->space != ptr_type->space) {
        en_error(ck->diags, e->loc, "cannot return a reference to %s memory as a %s reference",
                 ir_space_name(addr->type->space), ir_space_name(ptr_type->space));
        return NULL;
    }
    if (addr->type != ptr_type) {
        ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, ptr_type, e->loc, 1);
        p->args[0] = addr;
        addr = p;
    }
    return addr;
}

/* ---- conversion operators ------------------------------------------------------------------------ */
/* the conversion operator of e's struct type that converts to `to` (exactly, else through a
 * standard conversion), or NULL */
static ck_func *conversion_operator(checker *ck, ir_expr *e, ir_type *to, ir_space space) {
    ir_type *st = e->type;
    ck_func *exact = NULL, *convertible = NULL;
    for (int i = 0; i < ck->methods.count; i++) {
        ck_func *cf = ck->methods.items[i];
        if (cf->owner != st || !cf->d->is_operator || strncmp(cf->d->name, "operator ", 9) != 0) continue;
        if (cf->is_template) {
            /* `template <typename U, ...> operator U()`: U is the type converted to */
            const ast_tparam *u = cf->d->tparams.count ? &cf->d->tparams.items[0] : NULL;
            if (!u || !u->name || !en_streq(cf->d->name + 9, u->name)) continue;
            bool hard = false;
            cf = ck_member_template_inst(ck, cf, NULL, to, NULL, 0, &hard);
            if (!cf) continue;
        }
        ck_inst *inst = ck_method_inst(ck, cf, space);
        if (!inst || !inst->fn) continue;
        if (inst->fn->return_type == to) exact = cf;
        else if (!convertible && ck_conv_rank(inst->fn->return_type, to, false) != CK_RANK_NONE) convertible = cf;
    }
    return exact ? exact : convertible;
}

bool ck_struct_converts(checker *ck, ir_expr *e, ir_type *to) {
    if (!ck->fn || e->type->kind != IR_T_STRUCT || to->kind == IR_T_STRUCT) return false;
    bool is_const = false;
    ir_space space = ir_is_place(e) ? ck_place_space(e, &is_const) : IR_SPACE_THREAD;
    return conversion_operator(ck, e, to, space) != NULL;
}

ir_expr *ck_struct_conversion(checker *ck, ir_expr *e, ir_type *to, en_loc loc) {
    if (!ck->fn) return NULL;
    bool is_const = false;
    ir_space space = ir_is_place(e) ? ck_place_space(e, &is_const) : IR_SPACE_THREAD;
    ck_func *pick = conversion_operator(ck, e, to, space);
    if (!pick) return NULL;
    if (pick->from_template) { /* an instance: called directly, not by name */
        ir_expr *v = ck_call_method_inst(ck, e, pick, loc);
        if (!v || v->type == to) return v;
        return ck_implicit(ck, v, to, loc);
    }
    ir_expr *v = ck_call_method(ck, e, pick->d->name, NULL, NULL, 0, loc);
    if (!v || v->type == to) return v;
    return ck_implicit(ck, v, to, loc);
}

/* ---- static members and member types --------------------------------------------------------------
 * `static float f(float)`, `static constexpr int N = 4;`, `using type = T;` and nested enums
 * in struct S are a function, a program-scope constant and types named S::f, S::N,
 * S::type: reached qualified, and unqualified from S's member functions (which look names
 * up from S outward). In an instantiation of a class template they are named after it,
 * S<float>::N, and are checked in the instantiation's scope, where its parameters are:
 * what that declares there is published under the qualified name too. */
/* what a class template instance declared in its own scope since `before` (static members,
 * member types, nested structs), also under its qualified name S<...>::x for uses outside */
static void publish_members(checker *ck, const ir_type *owner, ck_scope *scope, ck_sym *before) {
    const char *saved_ns = ck->ns;
    ck->scope = ck->globals;
    ck->ns = "";
    for (ck_sym *s = scope->syms; s && s != before; s = s->next) {
        if (!s->name || strstr(s->name, "::")) continue;
        ck_sym *g = ck_declare(ck, s->kind, en_fmt(ck->a, "%s::%s", owner->name, s->name), s->loc);
        const char *gname = g->name;
        ck_sym *gnext = g->next, *golder = g->older_same_name;
        *g = *s;
        g->name = gname;
        g->next = gnext;
        g->older_same_name = golder;
    }
    ck->scope = scope;
    ck->ns = saved_ns;
}

bool ck_static_member(checker *ck, ir_type *owner, const char *sname, const ast_decl *m) {
    const char *saved_ns = ck->ns;
    ck_scope *scope = ck->scope;
    bool in_template = scope != ck->globals && strchr(owner->name, '<');
    ck_sym *before = scope->syms;
    ck->ns = in_template ? owner->name : ck_qualify(ck, sname);
    ck_decl(ck, m, true);
    ck->ns = saved_ns;
    if (in_template) publish_members(ck, owner, scope, before);
    return true;
}

/* ---- base classes ----------------------------------------------------------------------------------
 * `struct D : B {...}` lays B out first, as a member named __anonbaseN that member lookup
 * looks through (like an anonymous struct member); an empty base (MLX's `struct is_empty :
 * bool_constant<...> {}`) takes no space. Member functions, static members and member
 * types not found in D are looked for in its bases, in order. */
typedef EN_VEC(ir_field) field_vec;

void ck_struct_bases(checker *ck, const ast_decl *d, ir_type *t, void *fields_vec) {
    field_vec *fields = fields_vec;
    for (int i = 0; i < d->bases.count; i++) {
        ir_type *b = ck_type(ck, d->bases.items[i]);
        if (!b) continue;
        if (b->kind != IR_T_STRUCT || (b->size == 0 && b->field_count == 0)) {
            en_error(ck->diags, d->bases.items[i]->loc, "base class '%s' of '%s' must be a defined struct",
                     ck_type_name(ck, b), d->name ? d->name : "?");
            continue;
        }
        bool empty = b->field_count == 0;
        ck_base rel = {.derived = t, .base = b, .field = empty ? -1 : fields->count};
        if (!empty) EN_PUSH(ck->a, *fields, ((ir_field){.name = en_fmt(ck->a, "__anonbase%d", i), .type = b}));
        EN_PUSH(ck->a, ck->bases, rel);
    }
}

ir_type *ck_struct_base(checker *ck, const ir_type *t, int i, int *field) {
    for (int k = 0; k < ck->bases.count; k++)
        if (ck->bases.items[k].derived == t && i-- == 0) {
            *field = ck->bases.items[k].field;
            return ck->bases.items[k].base;
        }
    return NULL;
}

bool ck_has_method_inherited(checker *ck, const ir_type *t, const char *name) {
    if (ck_has_method(ck, t, name)) return true;
    int field;
    for (int i = 0; ck_struct_base(ck, t, i, &field); i++)
        if (ck_has_method_inherited(ck, ck_struct_base(ck, t, i, &field), name)) return true;
    return false;
}

bool ck_only_empty_variadic_methods(checker *ck, const ir_type *t, const char *name) {
    bool any = false;
    for (int i = 0; i < ck->methods.count; i++) {
        const ck_func *cf = ck->methods.items[i];
        if (cf->owner != t || !en_streq(cf->d->name, name)) continue;
        if (!ck_template_has_pack(cf->d) || !cf->d->body || cf->d->body->body.count != 0) return false;
        any = true;
    }
    return any;
}
