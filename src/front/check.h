/* check.h — the checker's internal state, shared by its steps:
 *   types.c     MSL type names -> ir_type
 *   conv.c      implicit and explicit conversions, usual arithmetic conversions
 *   consteval.c constant folding (array sizes, template arguments, case labels)
 *   builtins.c  the built-in function catalog, signature checks, lowering to intrinsics
 *   check_expr.c / check_stmt.c / check_decl.c   the AST walk
 *   check.c     the entry point en_check
 * Internal to src/front. */
#ifndef ENIGMA_CHECK_H
#define ENIGMA_CHECK_H

#include "ast.h"
#include "front.h"

typedef struct checker checker;

/* ---- types.c ----------------------------------------------------------------------- */
EN_INTERNAL ir_type *ck_scalar_type(ir_module *m, const char *name);
/* scalars, vectors, packed vectors, atomics, simdgroup matrices by their MSL name */
EN_INTERNAL ir_type *ck_named_builtin_type(ir_module *m, const char *name);
/* the message for a type enigma rejects by name (double, textures...), or NULL */
EN_INTERNAL const char *ck_unsupported_type(const char *name);
EN_INTERNAL bool ck_is_template_builtin_type(const char *name);
/* floatCxR as the IR holds it: an array of C vectors of R lanes (NULL outside 2..4) */
EN_INTERNAL ir_type *ck_matrix_type(ir_module *m, ir_type *elem, int cols, int rows);
/* vec<T,N>, packed_vec<T,N>, atomic<T>, simdgroup_matrix<T,8,8>; a NULL type_args[i]
 * means argument i is the value value_args[i] */
EN_INTERNAL ir_type *ck_template_builtin_type(checker *ck, const char *name, ir_type **type_args,
                                              const int64_t *value_args, int arg_count, en_loc loc);
EN_INTERNAL ir_type *ck_vote_type(ir_module *m);
EN_INTERNAL bool ck_is_vote(const ir_type *t);
EN_INTERNAL const char *ck_type_name(checker *ck, const ir_type *t);
EN_INTERNAL bool ck_is_arith(const ir_type *t); /* scalar or vector */

/* ---- conv.c ------------------------------------------------------------------------ */
typedef enum ck_rank {
    CK_RANK_EXACT,
    CK_RANK_PROMOTION,
    CK_RANK_CONVERSION,
    /* a scalar splatted into a vector: a conversion, but one that loses to any conversion
     * between scalars (clang's vector splat; MLX's elem_to_loc(uint3 ...) and
     * elem_to_loc(IdxT ...) overloads called with a uint rely on it) */
    CK_RANK_SPLAT,
    CK_RANK_NONE,
} ck_rank;
/* how an implicit conversion from `from` to `to` ranks for overload resolution; an
 * expression that is a constant may narrow into a vector's lanes */
EN_INTERNAL ck_rank ck_conv_rank(const ir_type *from, const ir_type *to, bool is_const);
/* e converted implicitly to `to`, or NULL after an error that names `what` */
EN_INTERNAL ir_expr *ck_implicit(checker *ck, ir_expr *e, ir_type *to, en_loc loc);
/* the null pointer (nullptr) of ptr_type; NULL ptr_type: of no pointer type yet, to be
 * converted to one (ck_implicit takes it to any pointer type) */
EN_INTERNAL ir_expr *ck_null_pointer(checker *ck, ir_type *ptr_type, en_loc loc);
EN_INTERNAL bool ck_is_null_pointer(const ir_expr *e);
/* an explicit conversion (static_cast, C and functional casts), or NULL after an error */
EN_INTERNAL ir_expr *ck_explicit(checker *ck, ir_expr *e, ir_type *to, en_loc loc);
/* numeric conversion with constant folding; no checks */
EN_INTERNAL ir_expr *ck_convert(checker *ck, ir_expr *e, ir_type *to, en_loc loc);
/* v rounded to float, half or bfloat (round to nearest even) */
EN_INTERNAL double ck_round_float(ir_type_kind k, double v);
/* integer promotion of a scalar type (bool/char/short -> int) */
EN_INTERNAL ir_type *ck_promote(checker *ck, ir_type *t);
/* the common type of a binary arithmetic operator's operands, converting both; false
 * after an error */
EN_INTERNAL bool ck_arith_operands(checker *ck, ir_expr **a, ir_expr **b, const char *op,
                                   en_loc loc);
/* bool or boolN with t's lanes */
EN_INTERNAL ir_type *ck_bool_like(checker *ck, const ir_type *t);
/* a condition: scalar converted to bool */
EN_INTERNAL ir_expr *ck_condition(checker *ck, ir_expr *e, en_loc loc);
/* the address of an array place's first element (array-to-pointer decay) */
EN_INTERNAL ir_expr *ck_decay(checker *ck, ir_expr *array_place, en_loc loc);
/* the address space a place lives in, and whether it is read-only there */
EN_INTERNAL ir_space ck_place_space(const ir_expr *place, bool *is_const);
EN_INTERNAL void ck_mark_address_taken(ir_expr *place);
EN_INTERNAL void ck_mark_assigned(ir_expr *place);

/* ---- consteval.c -------------------------------------------------------------------- */
/* the constant value of e, folded; NULL when it is not a constant expression */
EN_INTERNAL ir_expr *ck_fold(checker *ck, ir_expr *e);
/* a call of a constexpr function with constant arguments whose body is `return e;`: e's
 * folded value, or NULL (constexpr_call.c) */
EN_INTERNAL ir_expr *ck_constexpr_call(checker *ck, const ir_func *callee, ir_expr **args, int n);
/* an object of struct t built at program scope by a constructor that only assigns its fields
 * from its parameters and constants: the IR_E_AGGREGATE of the fields, or NULL */
EN_INTERNAL ir_expr *ck_constexpr_construct(checker *ck, ir_type *t, ir_expr **args, en_loc *locs, int n, en_loc loc);
/* an integer constant's value; false when e is not an integer constant */
EN_INTERNAL bool ck_const_int(checker *ck, ir_expr *e, int64_t *out);
EN_INTERNAL bool ck_is_const(const ir_expr *e);

/* ---- builtins.c ---------------------------------------------------------------------- */
typedef struct ck_targ {
    ir_type *type; /* a type argument, or NULL for a value */
    int64_t value;
    struct ck_sym *func; /* a function argument (of a function-pointer parameter) */
    const struct ast_name *func_name; /* ... as written, with its template arguments:
                                         mmv_fn<kernel_mul_mv_t_t_disp<float, float>> */
    bool is_ref;         /* a reference type argument `constant Args &`: type is the pointer
                            a reference lowers to */
    /* a function argument pinned to one function instance (function_pointer.c), NULL while
     * it is resolved per call */
    struct ck_func *fptr_func;
    struct ck_inst *fptr_inst;
} ck_targ;
/* is `name` a built-in function? */
EN_INTERNAL bool ck_is_builtin(const char *name);
/* an MSL built-in enigma leaves out (its name), or NULL */
EN_INTERNAL const char *ck_unsupported_builtin(const char *name);
/* checks and lowers a call of built-in `name`; pure ones become IR_E_CALL, the others
 * IR_S_INTRINSIC statements appended to the current block with their result read back
 * from a temporary. arg_places are the unconverted argument expressions (places where
 * they were places). Returns NULL after an error. */
EN_INTERNAL ir_expr *ck_builtin_call(checker *ck, const char *name, bool precise,
                                     ir_expr **args, en_loc *arg_locs, int n,
                                     const ck_targ *targs, int targ_count, en_loc loc);

/* ---- the walk (check_*.c) ---------------------------------------------------------- */
typedef enum ck_sym_kind {
    SYM_VAR, SYM_CONST, SYM_TYPE, SYM_FUNC, SYM_NAMESPACE,
    SYM_FIELD, /* inside a member function: a field of *this */
} ck_sym_kind;

typedef struct ck_scope ck_scope;

typedef struct ck_inst {
    const char *name;  /* "f<float, 4>": also the cache key */
    ir_func *fn;
    ir_type **param_types;
    bool *param_is_ref;
    int param_count;
    /* templates: the scope binding the parameters; the body is checked only once the
     * instantiation is chosen by overload resolution */
    ck_scope *tscope;
    bool body_checked;
    const ast_decl *d;  /* the declaration it was made from: an explicit specialization's
                           when one matches, else NULL (the template's) */
} ck_inst;

/* one function declaration (a template or not); overloads chain through `next` */
typedef struct ck_func {
    const ast_decl *d;
    const char *qname;        /* "ns::f" */
    const char *ns;           /* the namespace it was declared in ("" at global scope) */
    bool is_template;
    bool is_kernel;           /* a kernel: named only so that calling it is a clear error */
    ir_type *owner;           /* a member function: its struct (instantiated per `this` space) */
    bool signature_ok;
    /* non-templates */
    ck_inst sig;              /* fn is created at the first declaration */
    const ast_decl *definition;
    bool used;                /* called: a missing definition is then an error */
    en_loc use_loc;
    /* templates */
    EN_VEC(ck_inst *) insts;
    /* a member function template: its instantiations, each a member function of its own
     * (named "S::f<int>", its template parameters bound in a scope inside the struct's) */
    EN_VEC(struct ck_func *) member_insts;
    bool from_template;       /* one of those instantiations (a non-template wins a tie with it) */
    /* explicit specializations `template<> R f<A>(...)`, by instantiation name */
    EN_VEC(const char *) spec_names;
    EN_VEC(const ast_decl *) spec_decls;
    ck_scope *outer;          /* member functions: the scope their bodies see (a class
                                 template's bindings), NULL for the globals */
    struct ck_func *next;
} ck_func;

typedef struct ck_sym {
    ck_sym_kind kind;
    const char *name;         /* program scope: qualified ("ns::x"); local: as written */
    en_loc loc;
    ir_var *var;              /* VAR */
    bool is_ref;              /* VAR holds a pointer; each use is a DEREF. TYPE: the name
                                 stands for a reference (a template parameter bound to
                                 `constant Args &`); type is the pointer it lowers to */
    ir_expr *value;           /* CONST: its folded value */
    ir_type *type;            /* TYPE */
    ck_func *funcs;           /* FUNC: the overload set */
    /* FUNC bound to a function template parameter: the argument's name with its template
     * arguments, which calls through the parameter use */
    const struct ast_name *called_as;
    int field;                /* FIELD: its index in the struct of `this` */
    /* CONST declared [[function_constant(index)]]; value NULL when none was given */
    bool is_function_constant;
    int function_constant_index;
    ir_type *function_constant_type;
    /* TYPE with type NULL: `typedef decltype(f<float>) f_t;` names the type of function
     * template specialisation `func_type_of` (only an explicit instantiation may use it) */
    const char *func_type_of;
    int func_type_params;     /* ... and how many parameters that function type has */
    bool func_type_is_pointer; /* ... a pointer to it (function_pointer.c) */
    /* FUNC bound to a function template parameter pinned to one instance (function_pointer.c):
     * calls through it call that instance */
    struct ck_func *fptr_func;
    struct ck_inst *fptr_inst;
    /* TYPE with type NULL: a class template; uses with arguments instantiate it (class.c) */
    struct ck_class_template *class_template;
    /* CONST with no value: a variable template; TYPE with type NULL: an alias template
     * (template.c) */
    struct ck_other_template *other_template;
    /* TYPE: `typedef S<true> name;` of a template instance at program scope, resolved at
     * the name's first use (so that a header's typedefs instantiate nothing unused), in
     * the namespace it was declared in */
    const struct ast_decl *lazy_typedef;
    const char *lazy_ns;
    bool lazy_resolving;
    struct ck_sym *next;      /* the scope's symbols, newest first */
    struct ck_sym *older_same_name; /* the scope's previous symbol of this name, if any */
} ck_sym;

/* A scope's symbols are a list (newest first: iteration order) and, once the scope has
 * more than a few of them, an open-addressing hash table from name to the newest symbol
 * of that name, so that generated kernels with thousands of locals look names up in
 * constant time. */
struct ck_scope {
    ck_sym *syms;
    struct ck_scope *parent;
    int sym_count;
    int table_cap;            /* a power of two, 0 while the list is short */
    ck_sym **table;
    bool table_failed;        /* out of memory: the list alone serves */
};

/* a loop (or a switch's one-shot loop) that break/continue can leave */
typedef struct ck_jump {
    ir_stmt *loop;
    bool is_switch;
    struct ck_jump *outer;
} ck_jump;

/* what belongs to the function being built; saved around a template instantiation */
typedef struct ck_fnctx {
    ir_func *fn;
    ir_stmt *block;
    ck_scope *scope;
    ck_jump *jumps;
    int control_depth;        /* inside if/loop/switch: no threadgroup declarations here */
    ir_type *ret_type;
    bool is_kernel;
    const char *ns;
    int inst_depth;
    ir_var *this_var;
    bool in_template;
} ck_fnctx;

struct checker {
    en_ctx *c;
    en_diags *diags;
    en_arena *a;
    ir_module *m;
    ir_func *fn;              /* the function being built, NULL at program scope */
    ir_stmt *block;           /* where statements go */
    ck_scope *scope;          /* innermost scope; the outermost holds program-scope names */
    ck_scope *globals;
    const char *ns;           /* current namespace, "" or "a::b" */
    EN_VEC(const char *) usings; /* namespaces named by `using namespace` */
    ck_jump *jumps;
    int control_depth;
    ir_type *ret_type;
    bool is_kernel;
    int inst_depth;           /* nested template instantiations (bounded) */
    /* > 0 while checking code a constant condition never runs (an `if`'s branch, a `?:`
     * arm, the right of `&&`/`||`): there a function constant with no value may be read,
     * as Metal's `if (is_function_constant_defined(c)) use(c);` does */
    int dead_code;
    /* while binding a member function template: the caller's scope, where the explicit
     * template arguments of the call are evaluated */
    ck_scope *targ_scope;
    /* ... and the template's namespace, where its parameter defaults are evaluated */
    const char *defaults_ns;
    /* set while a class template's arguments are bound a second time, to say why they did
     * not fit: the errors SFINAE keeps quiet are reported */
    bool explain_sfinae;
    /* the compile's own diagnostics: errors in a class template's body are reported there
     * even while a speculative binding (SFINAE) has diags quiet, as C++ makes them hard */
    en_diags *compile_diags;
    EN_VEC(ck_func *) methods;   /* member functions of every struct */
    /* base classes: derived struct, base struct, the field that holds the base (-1 for an
     * empty base, which takes no space, as C++'s empty base optimisation gives) */
    EN_VEC(struct ck_base) bases;
    EN_VEC(struct ck_member_default) member_defaults;
    /* while a struct's members are declared: static member function bodies wait here */
    bool deferring_bodies;
    EN_VEC(struct ck_func *) deferred_bodies;
    ir_var *this_var;            /* inside a member function: the object pointer */
    /* checking an instantiated function template's body: `if constexpr` leaves out the
     * branch not taken, which need not be valid (C++ [stmt.if]: it is not instantiated) */
    bool in_template;
    EN_VEC(struct ck_union_info *) unions; /* class.c: the members of each union type */
    EN_VEC(ir_func *) ref_funcs;  /* functions returning a reference (as a pointer) */
};

/* class.c: class templates */
typedef struct ck_class_template ck_class_template;
typedef struct ck_other_template ck_other_template;
typedef struct ck_base { ir_type *derived, *base; int field; } ck_base;
/* a default member initializer `T v[N] = {...};`: field `field` of owner, its expression
 * checked in the struct's scope */
typedef struct ck_member_default {
    ir_type *owner;
    int field;
    const struct ast_expr *init;
    struct ck_scope *scope;
    const char *ns;
} ck_member_default;
EN_INTERNAL void ck_class_template_decl(checker *ck, const ast_decl *d);
/* the struct type `name<args>` of class template ts, instantiated once per argument list */
EN_INTERNAL ir_type *ck_class_instantiate(checker *ck, ck_sym *ts, const ast_name_part *args, en_loc loc);
EN_INTERNAL void ck_struct_fill(checker *ck, const ast_decl *d, ir_type *t, const char *name);
/* moves complete struct t after every struct in the module (its fields' types, which
 * instantiating it may have created after it): backends define structs in that order */
EN_INTERNAL void ck_struct_after_fields(checker *ck, ir_type *t);

/* class.c: constructors */
EN_INTERNAL bool ck_has_constructor(checker *ck, const ir_type *t);
/* t(args) for a struct with constructors: a temporary built by the chosen constructor */
EN_INTERNAL ir_expr *ck_construct(checker *ck, ir_type *t, ir_expr **args, en_loc *locs, int n, en_loc loc);
/* a constructor's member initializers, as assignments through `this` (in its body's scope) */
EN_INTERNAL void ck_member_inits(checker *ck, const ast_decl *ctor, ir_type *owner);

/* class.c: overloaded operators. `spelling` is "+", "+=", "[]"...; args[0] is the left
 * operand. Member functions of args[0]'s struct come first, then free functions named
 * operator<spelling>. Returns NULL after an error. */
EN_INTERNAL ir_expr *ck_operator_call(checker *ck, const char *spelling, ir_expr **args, en_loc *locs, int n,
                                      en_loc loc);
/* does an overloaded operator apply (an operand of struct type)? */
EN_INTERNAL bool ck_wants_operator(ir_expr **args, int n);

/* class.c: functions returning references (T& f()): the IR function returns a pointer,
 * `return place;` returns its address, and a call is the place the result points to */
EN_INTERNAL bool ck_returns_ref(checker *ck, const ir_func *fn);
EN_INTERNAL ir_expr *ck_ref_return_value(checker *ck, const ast_expr *e, ir_type *ptr_type);

/* class.c: a struct value converted by its conversion operator `operator T()` to `to`
 * (NULL, quietly, when it has none that gives `to`) */
EN_INTERNAL ir_expr *ck_struct_conversion(checker *ck, ir_expr *e, ir_type *to, en_loc loc);
/* a member function's instantiation for objects in `space` (check_decl.c) */
EN_INTERNAL ck_inst *ck_method_inst(checker *ck, ck_func *cf, ir_space space);

/* class.c: a static member function or static/constexpr data member of a struct (not of
 * a class template instance), declared as S::name; false when not handled here */
EN_INTERNAL bool ck_static_member(checker *ck, ir_type *owner, const char *sname, const ast_decl *m);

/* class.c: unions and anonymous members */
typedef struct ck_union_info ck_union_info;
/* lays union t out over its members (name, type): one storage array, MSL size/alignment */
EN_INTERNAL void ck_union_layout(checker *ck, ir_type *t, ir_field *members, int n);
EN_INTERNAL bool ck_is_union(checker *ck, const ir_type *t);
/* fields named __anonN hold anonymous struct/union members */
EN_INTERNAL bool ck_is_anonymous_field(const char *name);
/* member `name` of struct place obj (through unions and anonymous members), NULL if none */
EN_INTERNAL ir_expr *ck_member(checker *ck, ir_expr *obj, const char *name, en_loc loc);

/* scopes and names (check.c) */
EN_INTERNAL void ck_push_scope(checker *ck);
EN_INTERNAL void ck_pop_scope(checker *ck);
EN_INTERNAL ck_sym *ck_declare(checker *ck, ck_sym_kind kind, const char *name, en_loc loc);
/* check_decl.c: the type of a lazily resolved typedef, now (see ck_sym.lazy_typedef) */
EN_INTERNAL void ck_resolve_lazy_typedef(checker *ck, ck_sym *s);

/* ---- builtins_composite.c ---------------------------------------------------------- */
/* fmin3, fmax3, fmedian3, min3, max3, median3, divide: built-ins made of others */
EN_INTERNAL bool ck_is_composite_builtin(const char *name);
EN_INTERNAL ir_expr *ck_composite_builtin(checker *ck, const char *name, ir_expr **args, en_loc *locs, int n,
                                          en_loc loc);

/* ---- type_traits.c ----------------------------------------------------------------- */
/* `is_same<A, B>::value`, `is_integral_v<T>`...: a bool constant (*handled true), or NULL
 * with *handled true after an error, or NULL with *handled false: not a trait */
EN_INTERNAL ir_expr *ck_type_trait_value(checker *ck, const ast_name *n, en_loc loc, bool *handled);

/* ---- class.c: base classes ---------------------------------------------------------- */
/* the base classes of d into t: fields for the non-empty ones (named __anonbaseN, so that
 * member lookup reaches through them) appended to `fields`, the relation recorded */
EN_INTERNAL void ck_struct_bases(checker *ck, const ast_decl *d, ir_type *t, void *fields_vec);
/* check_decl.c: member function cf (no arguments; an instance of a template) called on obj */
EN_INTERNAL ir_expr *ck_call_method_inst(checker *ck, ir_expr *obj, ck_func *cf, en_loc loc);
/* check_decl.c: member function template cf instantiated (explicit arguments, or its first
 * type parameter given as `first`, then deduction from args); NULL when it does not fit */
EN_INTERNAL ck_func *ck_member_template_inst(checker *ck, ck_func *cf, const struct ast_name_part *explicit_args,
                                            ir_type *first, ir_expr **args, int n, bool *hard_error);
/* are the member functions `name` of struct t all variadic templates with empty bodies? */
EN_INTERNAL bool ck_only_empty_variadic_methods(checker *ck, const ir_type *t, const char *name);
/* has struct t, or one of its bases, a member function of this name? */
EN_INTERNAL bool ck_has_method_inherited(checker *ck, const ir_type *t, const char *name);
/* the default member initializers of struct `owner` into object `obj` (a place), but not of
 * the fields a constructor's initializer list `except` names (NULL: none) */
EN_INTERNAL void ck_member_defaults(checker *ck, ir_type *owner, ir_expr *obj, const struct ast_decl *except);
EN_INTERNAL bool ck_has_member_defaults(checker *ck, const ir_type *owner);
/* default-initialises obj's members (a constructor's, except those its initializer list names;
 * `S x;` of an S without constructors): default member initializers, then the members of
 * class type (their default constructors, recursively) */
EN_INTERNAL void ck_default_init_members(checker *ck, ir_type *owner, ir_expr *obj, const struct ast_decl *except,
                                         en_loc loc);
/* the i-th base of struct t (NULL past the last), and the field holding it (-1: empty) */
EN_INTERNAL ir_type *ck_struct_base(checker *ck, const ir_type *t, int i, int *field);

/* ---- function_constant.c ----------------------------------------------------------- */
/* `constant T name [[function_constant(i)]];` (attribute a, declared type t) */
EN_INTERNAL void ck_function_constant_decl(checker *ck, const ast_decl *d, const ast_attr *a, ir_type *t);
/* is_function_constant_defined(name): a bool constant, or NULL after an error */
EN_INTERNAL ir_expr *ck_is_function_constant_defined(checker *ck, const ast_expr *call);
/* a read of function constant s, which has no value: an error, or in dead code a stand-in */
EN_INTERNAL ir_expr *ck_function_constant_missing(checker *ck, const ck_sym *s, en_loc loc);
/* the newest symbol named `name` (as stored: qualified at program scope) in scope sc
 * alone; older ones of the same name follow through older_same_name */
EN_INTERNAL ck_sym *ck_find_in_scope(const ck_scope *sc, const char *name);
/* looks a written name up: locals, then the namespaces around, then `using` ones */
EN_INTERNAL ck_sym *ck_lookup(checker *ck, const ast_name *n);
EN_INTERNAL ck_sym *ck_lookup_str(checker *ck, const char *name);
EN_INTERNAL const char *ck_qualify(checker *ck, const char *name);
EN_INTERNAL ck_fnctx ck_save_fn(checker *ck);
EN_INTERNAL void ck_restore_fn(checker *ck, ck_fnctx s);

/* types (check_decl.c) */
EN_INTERNAL ir_type *ck_type(checker *ck, const ast_type *t);
/* a reference type's parameter/variable type: the pointer it becomes (is_ref set) */
EN_INTERNAL ir_type *ck_decl_type(checker *ck, const ast_type *t, bool *is_ref, bool is_param);
EN_INTERNAL ir_type *ck_type_name_lookup(checker *ck, const ast_name *n, bool report);
EN_INTERNAL void ck_decl(checker *ck, const ast_decl *d, bool at_program_scope);
EN_INTERNAL ir_expr *ck_initializer(checker *ck, ir_type *t, const ast_expr *init, en_loc loc);
/* an array initializer with designators ([i] = v, GNU [lo ... hi] = v), class.c */
EN_INTERNAL ir_expr *ck_designated_array(checker *ck, ir_type *t, const ast_expr *init, en_loc loc);
/* reports functions that are called but never defined */
EN_INTERNAL void ck_check_definitions(checker *ck);
/* a call of member function `name` on the struct object `obj` (a place or a value) */
EN_INTERNAL ir_expr *ck_call_method(checker *ck, ir_expr *obj, const char *name, ir_expr **args,
                                    en_loc *locs, int n, en_loc loc);
/* ... with explicit template arguments for a member function template (`x.template f<4>(y)`) */
EN_INTERNAL ir_expr *ck_call_method_explicit(checker *ck, ir_expr *obj, const char *name,
                                             const struct ast_name_part *explicit_args, ir_expr **args, en_loc *locs,
                                             int n, en_loc loc);
/* is there a member function `name` of struct type t? */
EN_INTERNAL bool ck_has_method(checker *ck, const ir_type *t, const char *name);
EN_INTERNAL ir_expr *ck_call_user(checker *ck, ck_sym *fs, const ast_name *name,
                                  ir_expr **args, en_loc *locs, int n, en_loc loc);

/* does any function of overload set fs take these arguments? (quiet: a user `dot(float,
 * float)` leaves vector calls of dot to Metal's built-in, as C++ overloading would) */
typedef enum ck_viability { CK_NOT_VIABLE, CK_VIABLE_CONVERTED, CK_VIABLE_EXACT } ck_viability;
EN_INTERNAL ck_viability ck_user_viable(checker *ck, ck_sym *fs, const ast_name *name, ir_expr **args, int n,
                                        en_loc loc);

/* template binding and instantiation (check_decl.c), for template.c */
typedef struct ck_binding {
    const char *name;
    ck_targ value;
    bool set;
    bool is_type;
    bool given;  /* written explicitly: not deduced */
} ck_binding;
/* a template argument as written: a type (*type) or a constant value (*value) */
EN_INTERNAL bool ck_targ_value(checker *ck, const ast_targ *ta, ir_type **type, int64_t *value);
/* binds the parameters among b (nb) that parameter type pt mentions from argument type at;
 * false on a conflict with a binding made before */
EN_INTERNAL bool ck_deduce(checker *ck, const ast_type *pt, ir_type *at, ck_binding *b, int nb);
/* the arguments written in `pattern` (S<T, N>, alias<U>) against arguments known for them
 * (an instance's, or what an alias's definition deduced): binds the parameters among b they
 * name; false on a conflict */
EN_INTERNAL bool ck_deduce_targs(checker *ck, const ast_name_part *pattern, const ck_binding *known,
                                 int known_count, ck_binding *b, int nb);
/* ck_deduce for a pattern written with alias template s (template.c) */
EN_INTERNAL bool ck_deduce_through_alias(checker *ck, ck_sym *s, const ast_name_part *p, ir_type *at, ck_binding *b,
                                         int nb);
/* does template d have a parameter pack (`typename... Ts`)? */
EN_INTERNAL bool ck_template_has_pack(const ast_decl *d);
EN_INTERNAL bool ck_bind_targs(checker *ck, const ast_decl *d, const char *qname,
                               const ast_name_part *explicit_args, ir_expr **args, int n, ck_binding *b,
                               bool *hard_error);
/* a function template's instance for explicit arguments alone, its body not yet checked;
 * NULL (quietly unless *hard_error) when they do not bind it */
EN_INTERNAL struct ck_inst *ck_instantiate_signature(checker *ck, struct ck_func *cf,
                                                     const struct ast_name_part *explicit_args, en_loc loc,
                                                     bool *hard_error);
/* function_pointer.c: binds a template parameter of function-pointer type ft (NULL: written
 * `R (*f)(...)`) to argument ta, looked up in `caller` (NULL: the current scope). False when
 * ta names no function (the caller reports it); *fits false when the function does not fit
 * ft (another template may) */
EN_INTERNAL bool ck_fptr_bind(checker *ck, const ast_targ *ta, const ck_sym *ft, ck_scope *caller, ck_targ *out,
                              bool *fits);
/* the argument as an instantiation's name shows it: the pinned instance, else as written */
EN_INTERNAL const char *ck_fptr_binding_text(checker *ck, const ck_targ *v);
/* why a function type s (written `written`) cannot be the type of a value */
EN_INTERNAL const char *ck_fptr_type_refusal(checker *ck, const ck_sym *s, const char *written);
/* "f<float, 4>": an instantiation's name and cache key */
EN_INTERNAL const char *ck_binding_name(checker *ck, const char *base, const ck_binding *b, int n);
/* class.c: the arguments class template ts was instantiated with to make t; false when t
 * is no instantiation of it */
EN_INTERNAL bool ck_class_instance_args(const ck_sym *ts, const ir_type *t, const ck_binding **args, int *count);
/* class.c: among specializations `specs` of template `primary` (named qname, declared in
 * namespace ns), the one the primary's bound arguments b (nb) select, its own bindings in
 * *sb; NULL when none does (the primary serves) */
EN_INTERNAL const ast_decl *ck_pick_specialization(checker *ck, const ast_decl *primary, const char *qname,
                                                   const char *ns, const ast_decl *const *specs, int nspecs,
                                                   const ck_binding *b, int nb, ck_binding **sb);
/* template.c: variable templates (`template <typename T> constexpr constant bool is_x_v = ...;`
 * with partial specializations) and alias templates (`template <bool B> using
 * bool_constant = integral_constant<bool, B>;`) */
EN_INTERNAL void ck_var_template_decl(checker *ck, const ast_decl *d);
EN_INTERNAL ir_expr *ck_var_template_value(checker *ck, ck_sym *s, const ast_name_part *args, en_loc loc);
EN_INTERNAL void ck_alias_template_decl(checker *ck, const ast_decl *d);
EN_INTERNAL ir_type *ck_alias_template_type(checker *ck, ck_sym *s, const ast_name_part *args, en_loc loc);
/* a scope above the globals binding cf's template parameters to b */
EN_INTERNAL ck_scope *ck_template_scope(checker *ck, const ast_decl *d, const ck_binding *b);
/* ... above `parent` (a member function template's: inside its struct's scope) */
EN_INTERNAL ck_scope *ck_template_scope_in(checker *ck, const ast_decl *d, const ck_binding *b, ck_scope *parent);
/* a function template instantiated from explicit arguments alone, body included */
EN_INTERNAL ck_inst *ck_instantiate(checker *ck, ck_func *cf, const ast_name_part *explicit_args, en_loc loc,
                                    bool *hard_error);
EN_INTERNAL void ck_instantiate_body(checker *ck, ck_func *cf, ck_inst *inst, en_loc use);
EN_INTERNAL void ck_kernel_build(checker *ck, const ast_decl *d, ck_inst *sig, const char *name,
                                 ck_scope *outer, const char *ns, const ast_attrs *extra);

/* template.c: explicit instantiations, explicit specializations, decltype */
EN_INTERNAL void ck_explicit_inst(checker *ck, const ast_decl *d);
/* the name of [[host_name("name")]] among attrs (NULL when absent or after an error,
 * which sets *bad) */
EN_INTERNAL const char *ck_host_name(checker *ck, const ast_attrs *attrs, bool *bad);
EN_INTERNAL void ck_add_specialization(checker *ck, ck_sym *set, const ast_decl *d);
EN_INTERNAL const ast_decl *ck_find_specialization(const ck_func *cf, const char *inst_name);
/* the type decltype(e) names; NULL after an error */
EN_INTERNAL ir_type *ck_decltype(checker *ck, const ast_type *t);
/* typedef decltype(f<float>) name;  — true when handled (a function type alias) */
EN_INTERNAL bool ck_func_type_alias(checker *ck, const ast_decl *d);

/* expressions (check_expr.c) */
EN_INTERNAL ir_expr *ck_expr(checker *ck, const ast_expr *e);
/* e as a value: references already dereferenced; arrays stay places */
EN_INTERNAL ir_expr *ck_rvalue(checker *ck, const ast_expr *e);
EN_INTERNAL ir_expr *ck_expr_to(checker *ck, const ast_expr *e, ir_type *t);
EN_INTERNAL bool ck_const_expr(checker *ck, const ast_expr *e, int64_t *out, const char *what);
EN_INTERNAL ir_expr *ck_addr_of(checker *ck, ir_expr *place, en_loc loc);

/* statements (check_stmt.c) */
EN_INTERNAL void ck_stmt(checker *ck, const ast_stmt *s);
EN_INTERNAL void ck_body(checker *ck, const ast_stmt *body);

/* appends a statement to the current block */
EN_INTERNAL void ck_emit(checker *ck, ir_stmt *s);
/* a fresh temporary of the current function, declared in the current block */
EN_INTERNAL ir_var *ck_temp(checker *ck, ir_type *t, en_loc loc);
EN_INTERNAL ir_var *ck_temp_init(checker *ck, ir_type *t, ir_expr *init, en_loc loc);
EN_INTERNAL ir_type *ck_t(checker *ck, ir_type_kind k);

/* a call at program scope (a static member's initializer): its constant value when it is a
 * constexpr call that folds, else NULL */
EN_INTERNAL ir_expr *ck_call_at_program_scope(checker *ck, ck_sym *fs, const ast_name *name, ir_expr **args,
                                              en_loc *locs, int n, en_loc loc);

/* does e (of a struct type) convert to the non-struct type `to` through a conversion
 * operator of its struct (class.c)? For overload resolution: nothing is emitted */
EN_INTERNAL bool ck_struct_converts(checker *ck, ir_expr *e, ir_type *to);

#endif
