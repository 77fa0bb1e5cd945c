/* ast.h — the syntax tree the parser (parse.c) builds and the checker (check.c) reads.
 *
 * What the parser guarantees:
 *   - Every node carries `loc`: for operators the operator token (binary, assignment,
 *     unary, '?' of a conditional, '[' of a subscript, '(' of a C cast), for a call its
 *     callee's loc, for a member access the member's name, for everything else the
 *     first token of the construct (for a declaration: its name, see ast_decl).
 *   - Everything lives in the compile's arena (c->arena); nothing is ever freed alone.
 *     After an out-of-memory (c->arena.out_of_memory set) en_parse returns an empty unit.
 *   - Lists are {items, count, cap} arrays; `items` may be NULL when count == 0.
 *   - Names are NUL-terminated arena strings. Keywords come through as plain names where
 *     they name types ("float", "uint", "void", "auto"); multi-word C spellings are
 *     normalised: "unsigned int"/"unsigned" -> "uint", "unsigned char" -> "uchar",
 *     "unsigned short" -> "ushort", "unsigned long"/"unsigned long long" -> "ulong",
 *     "signed char" -> "char", "long long"/"long int" -> "long", "short int" -> "short",
 *     "signed"/"signed int" -> "int".
 *   - The parser does NOT resolve names or types: `float4`, `metal::float4`, `T` (a
 *     template parameter) and `Foo` (a user struct) are all AST_TYPE_NAME. What it does
 *     decide (C++ disambiguation needs it) is whether a template argument or an
 *     expression-position name is a type or a value; see ast_targ and AST_EXPR_CONSTRUCT.
 *   - After an error the tree is still well-formed: missing pieces are AST_EXPR_ERROR /
 *     AST_TYPE_ERROR nodes (never NULL where a node is required). The checker should stay
 *     silent about ERROR nodes: the parser has already reported them.
 *   - Unsupported features (textures, samplers, vertex functions, goto, double...) are
 *     reported by the parser; the construct is dropped or replaced by an ERROR node.
 *   - `nullptr` is an AST_EXPR_NAME named "nullptr"; `alignas(N)` / `alignas(T)` is an
 *     attribute "alignas" whose argument is N or an AST_EXPR_ALIGNOF of T; attributes
 *     written on statements ([[likely]]) are dropped.
 *
 * Later changes to this file are additive only (new kinds, new fields at struct ends). */
#ifndef ENIGMA_AST_H
#define ENIGMA_AST_H

#include "../base/base.h"
#include "front.h"

typedef struct ast_expr ast_expr;
typedef struct ast_stmt ast_stmt;
typedef struct ast_decl ast_decl;
typedef struct ast_type ast_type;

/* ---- lists ------------------------------------------------------------------------ */
typedef struct ast_exprs { ast_expr **items; int count, cap; } ast_exprs;
typedef struct ast_stmts { ast_stmt **items; int count, cap; } ast_stmts;
typedef struct ast_decls { ast_decl **items; int count, cap; } ast_decls;

/* ---- attributes: [[name]], [[name(args)]], [[ns::name(args)]] ------------------------
 * Stored generically; the checker gives them meaning ("buffer", "threadgroup",
 * "thread_position_in_grid", "max_total_threads_per_threadgroup", "kernel"...). */
typedef struct ast_attr {
    en_loc loc;       /* the attribute's name */
    const char *name; /* as written, namespace included: "buffer", "clang::optnone" */
    ast_exprs args;   /* empty when written without parentheses */
    bool has_parens;  /* written as name() or name(args) */
} ast_attr;
typedef struct ast_attrs { ast_attr *items; int count, cap; } ast_attrs;

/* ---- names: x, metal::float4, ::x, numeric_limits<float>::max, as_type<float> ------- */
typedef struct ast_targ ast_targ;
typedef struct ast_targs { ast_targ *items; int count, cap; } ast_targs;

typedef struct ast_name_part {
    en_loc loc;
    const char *ident;  /* "metal", "float4", "operator+" */
    bool has_targs;     /* written with <...> (possibly empty: foo<>) */
    ast_targs targs;
} ast_name_part;

typedef struct ast_name {
    en_loc loc;         /* first token */
    bool global;        /* written with a leading "::" */
    ast_name_part *parts; /* count >= 1; the last part is the named entity */
    int count;
} ast_name;

/* A template argument: exactly one of `type` and `expr` is set. The parser makes it a
 * type when it starts with a known type name (built-in, typedef, struct, enum, template
 * parameter in scope, or a qualified name whose last part is one of these), or a type
 * keyword/qualifier (const, device...). Otherwise it is an expression; a lone unknown
 * identifier stays an AST_EXPR_NAME that the checker may resolve to a type. */
struct ast_targ {
    en_loc loc;
    ast_type *type;
    ast_expr *expr;
    bool pack_expansion; /* `Ts...` */
};

/* ---- written types ------------------------------------------------------------------ */
typedef enum ast_addr_space {
    AST_AS_NONE = 0,      /* not written (thread for locals; the checker decides) */
    AST_AS_DEVICE,
    AST_AS_CONSTANT,
    AST_AS_THREADGROUP,
    AST_AS_THREAD,
    AST_AS_THREADGROUP_IMAGEBLOCK, /* parsed only to be rejected by name */
    AST_AS_RAY_DATA,               /* idem */
    AST_AS_OBJECT_DATA,            /* idem */
} ast_addr_space;

enum { AST_Q_CONST = 1, AST_Q_VOLATILE = 2, AST_Q_RESTRICT = 4 };

typedef enum ast_type_kind {
    AST_TYPE_ERROR,   /* could not be parsed; already reported */
    AST_TYPE_NAME,    /* name (with template args): float, metal::float4, vec<float,4>,
                         atomic<int>, array<float,4>, simdgroup_matrix<float,8,8>, Foo, T */
    AST_TYPE_POINTER, /* base * quals */
    AST_TYPE_REF,     /* base & (rvalue && also lands here with is_rvalue_ref) */
    AST_TYPE_ARRAY,   /* base[dim]; dim NULL for [] */
    AST_TYPE_DECLTYPE,/* decltype(expr): expr in `decltype_expr` */
} ast_type_kind;

/* Declarator order is inside-out like C: `device float *p[4]` is
 * ARRAY(dim 4) of POINTER of NAME(float, space device). `const device float4 &x` is
 * REF of NAME(float4, quals const, space device). For a pointer or reference, the
 * address space and const of what it points to live on its `base`; `quals`/`space` on
 * the POINTER node itself are what is written after the `*` (`float * const p`). */
struct ast_type {
    ast_type_kind kind;
    en_loc loc;
    unsigned quals;          /* AST_Q_* written at this level */
    ast_addr_space space;    /* address space written at this level */
    ast_name name;           /* NAME */
    ast_type *base;          /* POINTER, REF, ARRAY */
    ast_expr *dim;           /* ARRAY (NULL: unsized) */
    bool is_rvalue_ref;      /* REF written && */
    bool elaborated;         /* NAME written as `struct X` / `enum X` / `typename X` */
    ast_expr *decltype_expr; /* DECLTYPE: the operand (unevaluated) */
};

/* ---- expressions -------------------------------------------------------------------- */
typedef enum ast_expr_kind {
    AST_EXPR_ERROR,     /* could not be parsed; already reported */
    AST_EXPR_INT,       /* ival, suffix (EN_LIT_*), text */
    AST_EXPR_FLOAT,     /* fval, suffix, text */
    AST_EXPR_CHAR,      /* ival */
    AST_EXPR_BOOL,      /* ival 0/1: true, false */
    AST_EXPR_STRING,    /* text with its quotes (static_assert messages) */
    AST_EXPR_NAME,      /* name: x, metal::max, fast::sin, foo<int,4>, mem_flags::mem_device,
                           numeric_limits<float>::max, MyEnum::A */
    AST_EXPR_THIS,
    AST_EXPR_CALL,      /* callee(args); callee any expression (NAME, MEMBER for methods) */
    AST_EXPR_CONSTRUCT, /* type(args) or type{args}: float4(a,b), T(x), Foo{1,2},
                           vec<float,4>(x); `brace` tells which. The parser makes this
                           when a known type name is followed by ( or {. */
    AST_EXPR_CAST,      /* cast_kind, type, operand */
    AST_EXPR_SIZEOF,    /* type (sizeof(T)) or operand (sizeof x / sizeof(x)) */
    AST_EXPR_ALIGNOF,   /* type or operand */
    AST_EXPR_MEMBER,    /* operand.member or operand->member (arrow); swizzles too */
    AST_EXPR_SUBSCRIPT, /* operand[index] */
    AST_EXPR_UNARY,     /* op, operand */
    AST_EXPR_BINARY,    /* op, lhs, rhs (comma included: AST_OP_COMMA) */
    AST_EXPR_ASSIGN,    /* lhs op= rhs; op AST_OP_NONE for plain = */
    AST_EXPR_COND,      /* cond ? lhs : rhs */
    AST_EXPR_INIT_LIST, /* { args } in an initializer or argument position */
    AST_EXPR_DESIGNATOR,/* in an INIT_LIST: [lhs] = operand, or GNU [lhs ... rhs] = operand */
} ast_expr_kind;

typedef enum ast_op {
    AST_OP_NONE,
    /* unary */
    AST_OP_PLUS, AST_OP_NEG, AST_OP_NOT, AST_OP_BITNOT, AST_OP_DEREF, AST_OP_ADDR,
    AST_OP_PREINC, AST_OP_PREDEC, AST_OP_POSTINC, AST_OP_POSTDEC,
    /* binary (also the operator of a compound assignment) */
    AST_OP_MUL, AST_OP_DIV, AST_OP_MOD, AST_OP_ADD, AST_OP_SUB, AST_OP_SHL, AST_OP_SHR,
    AST_OP_LT, AST_OP_GT, AST_OP_LE, AST_OP_GE, AST_OP_EQ, AST_OP_NE,
    AST_OP_BITAND, AST_OP_BITXOR, AST_OP_BITOR, AST_OP_LOGAND, AST_OP_LOGOR, AST_OP_COMMA,
} ast_op;

typedef enum ast_cast_kind {
    AST_CAST_C,           /* (T)x */
    AST_CAST_STATIC,      /* static_cast<T>(x) */
    AST_CAST_REINTERPRET, /* reinterpret_cast<T>(x) */
    AST_CAST_CONST,       /* const_cast<T>(x) */
    AST_CAST_AS_TYPE,     /* as_type<T>(x), metal::as_type<T>(x) */
} ast_cast_kind;

struct ast_expr {
    ast_expr_kind kind;
    en_loc loc;
    bool pack_expansion;      /* followed by `...` (a call argument `us...`, `sizeof...(Ts)`) */
    struct ast_name_part *member_targs; /* MEMBER written `.template f<N>`: its arguments */
    struct ast_type *qualifier;         /* NAME written `decltype(x)::kSize`: the decltype */
    /* literals */
    uint64_t ival;
    double fval;
    int suffix;               /* EN_LIT_* bits as written */
    const char *text;         /* literal spelling */
    /* names, members */
    ast_name name;            /* NAME */
    const char *member;       /* MEMBER */
    bool arrow;               /* MEMBER: -> */
    /* operators */
    ast_op op;                /* UNARY, BINARY, ASSIGN */
    ast_expr *operand;        /* UNARY, CAST, SIZEOF/ALIGNOF (expr form), MEMBER, SUBSCRIPT */
    ast_expr *lhs, *rhs;      /* BINARY, ASSIGN, COND (the two arms) */
    ast_expr *cond;           /* COND */
    ast_expr *index;          /* SUBSCRIPT */
    ast_expr *callee;         /* CALL */
    ast_exprs args;           /* CALL, CONSTRUCT, INIT_LIST */
    ast_type *type;           /* CONSTRUCT, CAST, SIZEOF/ALIGNOF (type form) */
    ast_cast_kind cast_kind;  /* CAST */
    bool brace;               /* CONSTRUCT: T{...} */
    bool parenthesized;       /* written inside ( ) (for "a = b" in conditions etc.) */
};

/* ---- statements --------------------------------------------------------------------- */
typedef enum ast_stmt_kind {
    AST_STMT_ERROR,     /* could not be parsed; already reported */
    AST_STMT_EMPTY,     /* ; */
    AST_STMT_COMPOUND,  /* { body } */
    AST_STMT_DECL,      /* decls: variables (one per declarator: `int a, b=1;` gives two),
                           also local typedef/using/struct/enum/static_assert */
    AST_STMT_EXPR,      /* expr; */
    AST_STMT_IF,        /* if [constexpr] (cond) then [else els] */
    AST_STMT_FOR,       /* for (init; cond; step) body; init is a DECL or EXPR statement or
                           NULL, cond and step may be NULL */
    AST_STMT_WHILE,     /* while (cond) body */
    AST_STMT_DO,        /* do body while (cond); */
    AST_STMT_SWITCH,    /* switch (cond) body */
    AST_STMT_CASE,      /* case expr: body — the label carries the statement after it
                           (chibicc style); `case 1: case 2: f();` nests */
    AST_STMT_DEFAULT,   /* default: body */
    AST_STMT_BREAK,
    AST_STMT_CONTINUE,
    AST_STMT_RETURN,    /* return [expr]; */
} ast_stmt_kind;

struct ast_stmt {
    ast_stmt_kind kind;
    en_loc loc;
    ast_stmts body;       /* COMPOUND */
    ast_decls decls;      /* DECL */
    ast_expr *expr;       /* EXPR, RETURN (NULL: none), CASE value */
    ast_expr *cond;       /* IF, FOR (NULL: none), WHILE, DO, SWITCH */
    ast_stmt *then, *els; /* IF (els NULL when absent) */
    ast_stmt *init;       /* FOR */
    ast_expr *step;       /* FOR (NULL: none) */
    ast_stmt *loop_body;  /* FOR, WHILE, DO, SWITCH, CASE, DEFAULT */
    /* FOR over a range: `for (decl : range) loop_body` (init, cond and step NULL) */
    struct ast_decl *range_var;
    ast_expr *range;
    bool is_constexpr;    /* IF: if constexpr */
    /* FOR/WHILE/DO preceded by `#pragma unroll [N]` */
    bool has_unroll;
    int unroll_count;     /* N; 0 = unroll fully (no count written) */
};

/* ---- declarations ------------------------------------------------------------------- */
typedef enum ast_decl_kind {
    AST_DECL_ERROR,          /* could not be parsed; already reported */
    AST_DECL_VAR,            /* a variable (program scope, local, or struct field) */
    AST_DECL_FUNC,           /* a function (also member functions and operators) */
    AST_DECL_STRUCT,         /* struct/class/union definition or forward declaration */
    AST_DECL_ENUM,           /* enum / enum class */
    AST_DECL_TYPEDEF,        /* typedef T name; and using name = T; */
    AST_DECL_NAMESPACE,      /* namespace name { decls } — `namespace a::b {}` is nested */
    AST_DECL_USING_NAMESPACE,/* using namespace name; */
    AST_DECL_USING,          /* using name; (a using-declaration: using metal::min;) */
    AST_DECL_STATIC_ASSERT,  /* static_assert(cond [, message]); */
    AST_DECL_EXPLICIT_INST,  /* template [[host_name("k_f")]] kernel T f<float>;
                                target: the template-id, type: the written type (often a
                                typedef of decltype(f<float>)), attrs/specs as written */
} ast_decl_kind;

/* declaration specifiers */
enum {
    AST_SPEC_KERNEL = 1,     /* kernel, or [[kernel]] */
    AST_SPEC_INLINE = 2,
    AST_SPEC_STATIC = 4,
    AST_SPEC_CONSTEXPR = 8,
    AST_SPEC_EXTERN = 16,
    AST_SPEC_TYPEDEF = 32,   /* only while parsing; AST_DECL_TYPEDEF in the tree */
};

typedef enum ast_init_style {
    AST_INIT_NONE,   /* int x; */
    AST_INIT_ASSIGN, /* int x = e;  int a[2] = {1, 2};  (init is the expression, an
                        INIT_LIST for = {...}) */
    AST_INIT_PAREN,  /* Foo x(a, b);  (init is an INIT_LIST of the arguments) */
    AST_INIT_BRACE,  /* Foo x{a, b};  (init is an INIT_LIST of the arguments) */
} ast_init_style;

/* a template parameter: typename T [= default], or a value: int N [= default] */
typedef struct ast_tparam {
    en_loc loc;
    const char *name;   /* may be NULL (unnamed) */
    bool is_type;       /* typename T / class T */
    ast_type *type;     /* value parameter: its type */
    ast_type *default_type;  /* type parameter default (NULL if none) */
    ast_expr *default_value; /* value parameter default (NULL if none) */
    bool is_pack;       /* `typename... Ts`: a parameter pack (parsed; instantiating a
                           template that has one is refused by the checker) */
    bool is_func;       /* a function pointer: void (*f)(int) — its argument names a
                           function, and calls through the parameter call that function */
} ast_tparam;
typedef struct ast_tparams { ast_tparam *items; int count, cap; } ast_tparams;

/* a function parameter */
typedef struct ast_param {
    en_loc loc;          /* its name, or its type when unnamed */
    const char *name;    /* may be NULL */
    ast_type *type;
    ast_attrs attrs;     /* [[buffer(0)]], [[thread_position_in_grid]]... */
    ast_expr *default_value; /* NULL if none */
    bool is_pack;        /* `Us... us`: a function parameter pack */
} ast_param;
typedef struct ast_params { ast_param *items; int count, cap; } ast_params;

typedef struct ast_enumerator {
    en_loc loc;
    const char *name;
    ast_expr *value;     /* NULL: previous + 1 */
} ast_enumerator;
typedef struct ast_enumerators { ast_enumerator *items; int count, cap; } ast_enumerators;

struct ast_decl {
    ast_decl_kind kind;
    en_loc loc;             /* the declared name (the keyword for unnamed things) */
    const char *name;       /* VAR, FUNC, STRUCT, ENUM, TYPEDEF, NAMESPACE (NULL: anonymous) */
    unsigned specs;         /* AST_SPEC_* */
    ast_attrs attrs;        /* attributes of the declaration, wherever written */
    bool is_template;       /* written after template<...> (tparams may be empty: <>) */
    ast_tparams tparams;

    /* VAR: type, init. TYPEDEF: type. FUNC: type is the return type (NULL for
     * constructors). ENUM: type is the underlying type (NULL if not written). */
    ast_type *type;
    ast_init_style init_style; /* VAR */
    ast_expr *init;            /* VAR (NULL when AST_INIT_NONE) */
    ast_expr *bit_width;       /* VAR as a struct field: `int x : 3` (NULL if none) */

    /* FUNC */
    ast_params params;
    ast_stmt *body;         /* COMPOUND; NULL for a declaration without body */
    bool is_const_method;   /* member function declared `const` after its parameters */
    bool is_operator;       /* name is "operator+", "operator[]", ... */
    bool is_constructor;    /* member function named like its struct */
    ast_name qual_name;     /* FUNC defined out of line, VAR defining a static member: `Foo::bar` (count 0 otherwise) */

    /* STRUCT: members (fields as VAR, methods as FUNC, nested types). is_union, is_class
     * say which keyword was used; has_body false for `struct Foo;` (ENUM: false for
     * `enum E : int;`). An unnamed struct or enum gets the name "__anonymous_struct_N" /
     * "__anonymous_enum_N", which the declarations using it name too; `typedef struct
     * {...} Foo;` gives that STRUCT and a TYPEDEF Foo of it. */
    ast_decls members;
    bool is_union, is_class, has_body;
    EN_VEC(ast_type *) bases; /* base classes, in order (`struct D : B, C<T>`) */

    /* ENUM */
    bool is_scoped;         /* enum class / enum struct */
    ast_enumerators enumerators;

    /* NAMESPACE: decls; USING_NAMESPACE / USING: target */
    ast_decls decls;
    ast_name target;

    /* STATIC_ASSERT */
    ast_expr *cond;
    ast_expr *message;      /* STRING or NULL */

    /* FUNC: an explicit specialization `template<> float f<float>(float)` names its
     * template-id here; STRUCT: a full or partial specialization of a class template,
     * `template <typename T> struct S<vec<T, 2>> {...}` (count 0 otherwise) */
    ast_name spec_name;

    /* TYPEDEF: `typedef void (k_t)(params);` names a function type: type is its return
     * type, params its parameters */
    bool is_func_type;

    /* FUNC, a constructor: its member initializers `: re(r), im{i}`, each an
     * AST_EXPR_CALL whose callee names the member (brace set for `im{i}`) */
    ast_exprs ctor_inits;
    /* FUNC, a member function: the address space written after its parameters
     * (`T get() threadgroup`): it applies to objects there only; NONE when not written */
    ast_addr_space this_space;

    /* TYPEDEF with is_func_type: the type named is a pointer to that function type,
     * `typedef R (*F)(params);` or `using F = R (*)(params);` (function_pointer.c) */
    bool func_type_is_pointer;
};

/* ---- the translation unit ----------------------------------------------------------- */
struct ast_unit {
    ast_decls decls;        /* program-scope declarations in source order */
};

/* ---- helpers (ast.c) ------------------------------------------------------------------ */
/* `metal::float4`, `vec<float, 4>`, `::x` as written (normalised spacing) */
EN_INTERNAL const char *ast_name_str(en_arena *a, const ast_name *n);
/* the last part's identifier ("float4" for metal::float4) */
EN_INTERNAL const char *ast_name_last(const ast_name *n);
/* a written type as text: "device const float *", "vec<float, 4>", "float[4]" */
EN_INTERNAL void ast_type_print(const ast_type *t, en_buf *out);
EN_INTERNAL void ast_expr_print(const ast_expr *e, en_buf *out);
EN_INTERNAL const char *ast_op_spelling(ast_op op);
/* the whole tree as an indented S-expression-like dump (one node per line) */
EN_INTERNAL void ast_dump(const ast_unit *u, en_buf *out);

#endif
