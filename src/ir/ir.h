/* ir.h — the typed, structured kernel IR: the contract between the front end and every
 * backend.
 *
 * Shape (what every producer guarantees and every consumer may rely on):
 *   - A module holds functions, constant globals and struct types. After the inline pass
 *     only kernels remain and no IR_S_CALL is left.
 *   - Control flow is structured: blocks, if, loop (with a latch that `continue` reaches),
 *     break/continue naming their target loop, return. No goto.
 *   - Expressions are side-effect free: they read variables and memory and compute. Every
 *     side effect or collective operation is a statement: assignment, IR_S_INTRINSIC
 *     (barriers, SIMD/quad functions, atomics, simdgroup_matrix), IR_S_CALL.
 *     The front end lowers `&&`, `||` and `?:` whose later operands could fault or touch
 *     memory into if-statements, so evaluating a whole expression is always safe under
 *     any lane mask except for its loads (which backends mask) and integer division
 *     (which backends guard).
 *   - Every conversion is explicit (IR_E_CONVERT, IR_E_SPLAT, IR_E_BITCAST): operands of
 *     a binary operator have the same type, an assignment's value has the place's type.
 *   - References are pointers: a `thread float& r` parameter is a `thread float*`, and
 *     each use of it is an IR_E_DEREF.
 *   - Every node carries its source location. */
#ifndef ENIGMA_IR_H
#define ENIGMA_IR_H

#include "../base/base.h"

/* ---- types ------------------------------------------------------------------------ */
typedef enum ir_type_kind {
    IR_T_VOID,
    IR_T_BOOL,
    IR_T_I8, IR_T_U8, IR_T_I16, IR_T_U16, IR_T_I32, IR_T_U32, IR_T_I64, IR_T_U64,
    IR_T_F16, IR_T_BF16, IR_T_F32,
    IR_T_VEC,           /* elem: a scalar; count 2..4; packed: no padding of 3-vectors */
    IR_T_ARRAY,         /* elem, count */
    IR_T_STRUCT,        /* fields */
    IR_T_PTR,           /* elem = pointee, space, is_const */
    IR_T_ATOMIC,        /* elem: i32, u32, bool, f32 (also u64 for min/max) */
    IR_T_SIMD_MATRIX,   /* elem: f32, f16 or bf16; always 8x8 */
} ir_type_kind;

typedef enum ir_space {
    IR_SPACE_THREAD,      /* private to a thread (default for locals) */
    IR_SPACE_THREADGROUP, /* shared by the threadgroup */
    IR_SPACE_DEVICE,      /* buffers, read-write */
    IR_SPACE_CONSTANT,    /* buffers and program-scope constants, read-only */
} ir_space;

typedef struct ir_type ir_type;

typedef struct ir_field {
    const char *name;
    ir_type *type;
    uint32_t offset; /* bytes, MSL layout */
} ir_field;

struct ir_type {
    ir_type_kind kind;
    ir_type *elem;      /* VEC, ARRAY, PTR, ATOMIC, SIMD_MATRIX */
    uint32_t count;     /* VEC lanes, ARRAY length */
    bool packed;        /* VEC: packed_float3 and friends */
    ir_space space;     /* PTR */
    bool is_const;      /* PTR: pointee is const */
    const char *name;   /* STRUCT: its MSL name (qualified); others: NULL */
    ir_field *fields;   /* STRUCT */
    int field_count;
    uint32_t size, align; /* bytes, MSL layout: float3 is 16/16, packed_float3 12/4 */
    int struct_index;   /* STRUCT: its place in the module's structs (backends name by it) */
};

/* Types are interned per module: two equal types are the same pointer, so backends and
 * the verifier compare types with ==. Structs are nominal (one per declaration). */
typedef struct ir_module ir_module;
EN_INTERNAL ir_type *ir_type_scalar(ir_module *m, ir_type_kind kind);
EN_INTERNAL ir_type *ir_type_vec(ir_module *m, ir_type *elem, uint32_t count, bool packed);
EN_INTERNAL ir_type *ir_type_array(ir_module *m, ir_type *elem, uint32_t count);
EN_INTERNAL ir_type *ir_type_ptr(ir_module *m, ir_type *pointee, ir_space space, bool is_const);
EN_INTERNAL ir_type *ir_type_atomic(ir_module *m, ir_type *elem);
EN_INTERNAL ir_type *ir_type_matrix(ir_module *m, ir_type *elem);
/* a new struct; fill fields, then call ir_struct_layout */
EN_INTERNAL ir_type *ir_type_struct(ir_module *m, const char *name);
EN_INTERNAL void ir_struct_layout(ir_type *s);

EN_INTERNAL bool ir_is_scalar(const ir_type *t);   /* bool, integers, floats */
EN_INTERNAL bool ir_is_integer(const ir_type *t);  /* scalar integer kinds (not bool) */
EN_INTERNAL bool ir_is_signed(const ir_type *t);
EN_INTERNAL bool ir_is_float(const ir_type *t);    /* f16, bf16, f32 */
EN_INTERNAL const ir_type *ir_scalar_of(const ir_type *t); /* vec -> elem, scalar -> itself */
EN_INTERNAL int ir_lanes(const ir_type *t);        /* vec -> count, scalar -> 1 */
/* MSL spelling: "float", "half4", "device float*", "S", "atomic_int" ... */
EN_INTERNAL const char *ir_type_name(const ir_type *t, en_arena *a);
/* the MSL name of a scalar kind ("float", "ushort"); "void" and "?" for the rest */
EN_INTERNAL const char *ir_scalar_name(ir_type_kind k);
EN_INTERNAL const char *ir_space_name(ir_space s);

/* ---- kernel parameters and position attributes ------------------------------------ */
typedef enum ir_attr {
    IR_ATTR_NONE,
    IR_ATTR_THREAD_POSITION_IN_GRID,
    IR_ATTR_THREADS_PER_GRID,
    IR_ATTR_THREAD_POSITION_IN_THREADGROUP,
    IR_ATTR_THREADS_PER_THREADGROUP,
    IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP,
    IR_ATTR_THREADGROUP_POSITION_IN_GRID,
    IR_ATTR_THREADGROUPS_PER_GRID,
    IR_ATTR_THREAD_INDEX_IN_THREADGROUP,
    IR_ATTR_THREAD_INDEX_IN_SIMDGROUP,
    IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP,
    IR_ATTR_THREADS_PER_SIMDGROUP,
    IR_ATTR_SIMDGROUPS_PER_THREADGROUP,
    IR_ATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP,
    IR_ATTR_THREAD_EXECUTION_WIDTH,
    IR_ATTR_THREAD_INDEX_IN_QUADGROUP,
    IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP,
    IR_ATTR_QUADGROUPS_PER_THREADGROUP,
    IR_ATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP,
    IR_ATTR_COUNT
} ir_attr;
EN_INTERNAL const char *ir_attr_name(ir_attr a); /* "thread_position_in_grid" */

typedef enum ir_param_kind {
    IR_PARAM_NONE,        /* a helper function's ordinary parameter */
    IR_PARAM_BUFFER,      /* [[buffer(n)]]: a device/constant pointer (or reference) */
    IR_PARAM_THREADGROUP, /* [[threadgroup(n)]]: dynamic threadgroup memory pointer */
    IR_PARAM_ATTR,        /* a position attribute: scalar or vector of uint/ushort */
} ir_param_kind;

/* ---- variables ---------------------------------------------------------------------- */
typedef enum ir_var_storage {
    IR_VAR_LOCAL,       /* a thread's local (IR_S_DECL) or a function parameter */
    IR_VAR_THREADGROUP, /* `threadgroup T x;` at kernel scope: one per threadgroup */
    IR_VAR_CONSTANT,    /* program-scope `constant T x = ...;` in ir_module.globals */
} ir_var_storage;

typedef struct ir_expr ir_expr;
typedef struct ir_stmt ir_stmt;

typedef struct ir_var {
    int id;               /* unique within its function (globals: within the module) */
    const char *name;     /* source name; temporaries are named "t<id>" */
    ir_type *type;
    en_loc loc;
    ir_var_storage storage;
    /* parameters */
    ir_param_kind param_kind;
    int binding;          /* BUFFER/THREADGROUP: the index, explicit or assigned in order */
    bool is_reference;    /* declared as T& rather than T* (introspection only) */
    ir_attr attr;         /* ATTR */
    /* facts the checker records for backends */
    bool is_assigned;     /* written after its declaration/initialisation */
    bool declared_const;  /* a local declared const: not assignable (checked by the checker) */
    bool address_taken;   /* IR_E_ADDR of it (or of part of it) exists */
    ir_expr *init;        /* IR_VAR_CONSTANT: its constant initializer */
    /* the uniformity pass's finding (src/pass/uniformity.c): true when the variable holds
     * the same value in every thread of a threadgroup wherever it is read; false when it
     * may differ or the pass has not run */
    bool uniform;
    /* true when it holds the same value in every thread of each SIMD group wherever it is
     * read (uniform implies it; simdgroup_index_in_threadgroup and what is computed from it) */
    bool simd_uniform;
} ir_var;

/* ---- expressions -------------------------------------------------------------------- */
typedef enum ir_expr_kind {
    IR_E_CONST,     /* scalar constant: .c */
    IR_E_VAR,       /* place: a variable */
    IR_E_INDEX,     /* place: a[i] — a is an array or vector place, or a pointer value
                       (then it is *(a + i)); index: any integer type */
    IR_E_FIELD,     /* place: a.field (field index in .field) */
    IR_E_SWIZZLE,   /* a.xyz: place when lanes are distinct; .swizzle, .swizzle_len */
    IR_E_DEREF,     /* place: *p */
    IR_E_ADDR,      /* &place: pointer to it */
    IR_E_UNARY,     /* .op: IR_OP_NEG, IR_OP_NOT (logical), IR_OP_BITNOT */
    IR_E_BINARY,    /* .op: arithmetic, comparison (result bool or boolN), logical */
    IR_E_SELECT,    /* args[0] ? args[1] : args[2]; both arms already evaluated (pure) */
    IR_E_CONVERT,   /* numeric/bool conversion of args[0] to .type (lane-wise) */
    IR_E_BITCAST,   /* as_type<T>: same size, reinterpret bits */
    IR_E_PTRCAST,   /* pointer to pointer of another pointee, same address space */
    IR_E_PTR_OFFSET,/* args[0] (pointer) + args[1] (integer, in elements) */
    IR_E_SPLAT,     /* scalar args[0] to vector .type */
    IR_E_VECTOR,    /* vector from .arg_count scalars (the front end flattens float4(a.xy, b, c)) */
    IR_E_AGGREGATE, /* array or struct value from .args (one per element or field) */
    IR_E_CALL,      /* a PURE intrinsic: .intrinsic, .args */
} ir_expr_kind;

typedef enum ir_op {
    IR_OP_NONE,
    /* unary */
    IR_OP_NEG, IR_OP_NOT, IR_OP_BITNOT,
    /* binary arithmetic */
    IR_OP_ADD, IR_OP_SUB, IR_OP_MUL, IR_OP_DIV, IR_OP_REM,
    IR_OP_SHL, IR_OP_SHR, IR_OP_AND, IR_OP_OR, IR_OP_XOR,
    /* comparison: operands of one type, result bool (or boolN for vectors) */
    IR_OP_EQ, IR_OP_NE, IR_OP_LT, IR_OP_LE, IR_OP_GT, IR_OP_GE,
    /* logical on bool operands; both sides already safe to evaluate */
    IR_OP_LOGAND, IR_OP_LOGOR,
} ir_op;
EN_INTERNAL const char *ir_op_name(ir_op op); /* "+", "==", "&&" ... */

typedef enum ir_intrinsic {
#define X(e, name, cls) IR_I_##e,
#include "intrinsics.def"
#undef X
    IR_I_COUNT
} ir_intrinsic;

typedef enum ir_intrinsic_class {
    IR_IC_PURE, IR_IC_BARRIER, IR_IC_FENCE, IR_IC_SIMD, IR_IC_QUAD, IR_IC_ATOMIC, IR_IC_MATRIX
} ir_intrinsic_class;
EN_INTERNAL const char *ir_intrinsic_name(ir_intrinsic i);
EN_INTERNAL ir_intrinsic_class ir_intrinsic_class_of(ir_intrinsic i);
/* true when `holds` is true of s or of a statement nested in it (a block's statements, an
 * if's arms, a loop's body and latch); s may be NULL */
EN_INTERNAL bool ir_stmt_any(const ir_stmt *s, bool (*holds)(const ir_stmt *));
/* the same, `holds` given ctx */
EN_INTERNAL bool ir_stmt_any_in(const ir_stmt *s, bool (*holds)(const ir_stmt *, const void *ctx), const void *ctx);
/* calls visit on s and on every statement nested in it, each once, a statement before the
 * ones it holds (a block's in order, an if's then before else, a loop's body before latch) */
EN_INTERNAL void ir_stmt_each(const ir_stmt *s, void (*visit)(const ir_stmt *, void *ctx), void *ctx);
/* true when a break or continue aimed at `loop` stands anywhere in s */
EN_INTERNAL bool ir_stmt_jumps_to(const ir_stmt *s, const ir_stmt *loop);
/* `v = v + C` with C an integer constant greater than 0 (a loop's `k += TILE`, `k++`): v,
 * with C in *step; else NULL */
EN_INTERNAL const ir_var *ir_stepped_var(const ir_stmt *s, unsigned long long *step);
/* true when `holds` (given ctx) is true of x or of an expression nested in it; x may be NULL */
EN_INTERNAL bool ir_expr_any(const ir_expr *x, bool (*holds)(const ir_expr *, const void *ctx), const void *ctx);
/* true when an expression of s or of a statement nested in it (a declaration's or return's
 * value, an assignment's place and value, an if's condition, an intrinsic's or call's
 * arguments), or one nested in those, is one `holds` is true of */
EN_INTERNAL bool ir_stmt_any_expr(const ir_stmt *s, bool (*holds)(const ir_expr *, const void *ctx), const void *ctx);

/* mem_flags bits, the first argument of barriers */
enum { IR_MEM_NONE = 0, IR_MEM_DEVICE = 1, IR_MEM_THREADGROUP = 2, IR_MEM_TEXTURE = 4 };

/* a fence's memory order (C++'s memory_order, in its order) and thread scope (Metal's
 * thread_scope, numbered as <metal_atomic>'s __METAL_MEMORY_SCOPE_*__): its 2nd and 3rd
 * arguments */
enum { IR_ORDER_RELAXED, IR_ORDER_CONSUME, IR_ORDER_ACQUIRE, IR_ORDER_RELEASE, IR_ORDER_ACQ_REL, IR_ORDER_SEQ_CST };
enum { IR_SCOPE_THREAD = 0, IR_SCOPE_THREADGROUP = 1, IR_SCOPE_DEVICE = 2, IR_SCOPE_SYSTEM = 3, IR_SCOPE_SIMDGROUP = 4 };

typedef union ir_const {
    int64_t i;  /* signed integer kinds */
    uint64_t u; /* unsigned integer kinds and bool (0/1) */
    double f;   /* float kinds: the exact value after rounding to the type */
} ir_const;

struct ir_expr {
    ir_expr_kind kind;
    ir_type *type;
    en_loc loc;
    ir_op op;
    ir_const c;               /* CONST */
    ir_var *var;              /* VAR */
    int field;                /* FIELD */
    uint8_t swizzle[4];       /* SWIZZLE: lane indices */
    int swizzle_len;
    ir_intrinsic intrinsic;   /* CALL */
    bool precise;             /* CALL: precise:: (true) or fast:: / default (false) */
    ir_expr **args;           /* operands: UNARY 1, BINARY 2, INDEX (base, index),
                                 FIELD/SWIZZLE/DEREF/ADDR/CONVERT/... 1 (base) */
    int arg_count;
};

/* ---- statements --------------------------------------------------------------------- */
typedef enum ir_stmt_kind {
    IR_S_BLOCK,      /* .stmts */
    IR_S_DECL,       /* declares .var (a local); .value is its initializer or NULL */
    IR_S_ASSIGN,     /* .place = .value */
    IR_S_IF,         /* if (.cond) .then_s else .else_s (else may be NULL) */
    IR_S_LOOP,       /* loop { .body } with .latch run after the body and on continue;
                        leaves only by break or return */
    IR_S_BREAK,      /* leaves .target (an IR_S_LOOP) */
    IR_S_CONTINUE,   /* goes to .target's latch */
    IR_S_RETURN,     /* .value or NULL; in a kernel, the thread is done */
    IR_S_INTRINSIC,  /* .intrinsic(.args) -> .result (may be NULL) */
    IR_S_CALL,       /* .callee(.args) -> .result (may be NULL); gone after inlining */
} ir_stmt_kind;

typedef struct ir_func ir_func;

struct ir_stmt {
    ir_stmt_kind kind;
    en_loc loc;
    /* BLOCK */
    ir_stmt **stmts;
    int stmt_count;
    /* DECL, INTRINSIC/CALL result */
    ir_var *var;
    ir_var *result;
    /* ASSIGN */
    ir_expr *place;
    ir_expr *value;        /* ASSIGN, DECL init, RETURN */
    /* IF */
    ir_expr *cond;
    ir_stmt *then_s, *else_s;
    /* LOOP */
    ir_stmt *body, *latch; /* latch may be NULL */
    int unroll;            /* #pragma unroll [N]: 0 none, -1 full, N */
    /* BREAK / CONTINUE */
    ir_stmt *target;
    /* INTRINSIC / CALL */
    ir_intrinsic intrinsic;
    ir_func *callee;
    ir_expr **args;
    int arg_count;
};

/* ---- functions and the module ------------------------------------------------------ */
struct ir_func {
    const char *name;        /* kernels: the MSL name; instantiations: "f<float>" */
    en_loc loc;
    bool is_kernel;
    ir_type *return_type;
    ir_var **params;
    int param_count;
    ir_stmt *body;           /* a BLOCK */
    EN_VEC(ir_var *) threadgroup_vars; /* kernel-scope `threadgroup` declarations */
    EN_VEC(ir_var *) locals;           /* every IR_VAR_LOCAL declared in the body */
    int next_var_id;
    uint32_t max_total_threads_per_threadgroup; /* attribute, 0 if absent */
};

struct ir_module {
    en_arena *arena;
    const en_sources *sources;
    EN_VEC(ir_func *) funcs;
    EN_VEC(ir_var *) globals;    /* IR_VAR_CONSTANT */
    EN_VEC(ir_type *) structs;
    EN_VEC(ir_type *) types;     /* the interning table */
    int next_global_id;
};

EN_INTERNAL ir_module *ir_module_new(en_arena *a, const en_sources *sources);
EN_INTERNAL ir_func *ir_func_new(ir_module *m, const char *name, en_loc loc);
EN_INTERNAL ir_func *ir_module_kernel(const ir_module *m, const char *name);
EN_INTERNAL int ir_module_kernel_count(const ir_module *m);
/* the module's index-th kernel (in module order), or NULL */
EN_INTERNAL const ir_func *ir_module_kernel_at(const ir_module *m, int index);
/* calls each() for every kernel of m with the module a library builds that kernel alone
 * from (m with only that kernel), the kernel and its index among m's kernels */
EN_INTERNAL void ir_each_kernel_alone(const ir_module *m,
                                      void (*each)(const ir_module *alone, const ir_func *kernel, int index, void *ctx),
                                      void *ctx);

/* Builders. They allocate in the module's arena and set type and location; they do not
 * check (the front end checks, the verifier re-checks). */
EN_INTERNAL ir_var *ir_var_new(ir_module *m, ir_func *f, const char *name, ir_type *t, en_loc loc);
EN_INTERNAL ir_var *ir_temp(ir_module *m, ir_func *f, ir_type *t, en_loc loc);
EN_INTERNAL ir_expr *ir_expr_new(ir_module *m, ir_expr_kind k, ir_type *t, en_loc loc, int arg_count);
EN_INTERNAL ir_expr *ir_const_int(ir_module *m, ir_type *t, int64_t v, en_loc loc);
EN_INTERNAL ir_expr *ir_const_uint(ir_module *m, ir_type *t, uint64_t v, en_loc loc);
EN_INTERNAL ir_expr *ir_const_float(ir_module *m, ir_type *t, double v, en_loc loc);
EN_INTERNAL ir_expr *ir_const_bool(ir_module *m, bool v, en_loc loc);
EN_INTERNAL ir_expr *ir_var_ref(ir_module *m, ir_var *v, en_loc loc);
EN_INTERNAL ir_expr *ir_unary(ir_module *m, ir_op op, ir_type *t, ir_expr *a, en_loc loc);
EN_INTERNAL ir_expr *ir_binary(ir_module *m, ir_op op, ir_type *t, ir_expr *a, ir_expr *b, en_loc loc);
EN_INTERNAL ir_expr *ir_index(ir_module *m, ir_type *t, ir_expr *base, ir_expr *index, en_loc loc);
EN_INTERNAL ir_expr *ir_deref(ir_module *m, ir_expr *ptr, en_loc loc);
EN_INTERNAL ir_expr *ir_convert(ir_module *m, ir_type *to, ir_expr *a, en_loc loc);
EN_INTERNAL ir_expr *ir_call(ir_module *m, ir_intrinsic i, ir_type *t, ir_expr **args, int n, en_loc loc);

EN_INTERNAL ir_stmt *ir_stmt_new(ir_module *m, ir_stmt_kind k, en_loc loc);
EN_INTERNAL ir_stmt *ir_block(ir_module *m, en_loc loc);
EN_INTERNAL void ir_block_append(ir_module *m, ir_stmt *block, ir_stmt *s);
EN_INTERNAL ir_stmt *ir_decl(ir_module *m, ir_func *f, ir_var *v, ir_expr *init, en_loc loc);
EN_INTERNAL ir_stmt *ir_assign(ir_module *m, ir_expr *place, ir_expr *value, en_loc loc);
EN_INTERNAL ir_stmt *ir_if(ir_module *m, ir_expr *cond, ir_stmt *then_s, ir_stmt *else_s, en_loc loc);
EN_INTERNAL ir_stmt *ir_intrinsic_stmt(ir_module *m, ir_intrinsic i, ir_var *result,
                                       ir_expr **args, int n, en_loc loc);

/* is this expression a place (something that can be assigned or have its address taken)? */
EN_INTERNAL bool ir_is_place(const ir_expr *e);

/* ---- printing and verification (src/ir/print.c, src/ir/verify.c) -------------------- */
/* readable text, one statement per line: what `enigma compile --emit ir` shows */
EN_INTERNAL void ir_print_module(const ir_module *m, en_buf *out);
EN_INTERNAL void ir_print_func(const ir_module *m, const ir_func *f, en_buf *out);
EN_INTERNAL void ir_print_expr(const ir_module *m, const ir_expr *e, en_buf *out);
/* the same with options: ir_print_module/func use IR_PRINT_LOCATIONS (a trailing
 * `; @line:col` on each statement); 0 leaves locations out */
enum { IR_PRINT_LOCATIONS = 1 };
EN_INTERNAL void ir_print_module_flags(const ir_module *m, en_buf *out, unsigned flags);
EN_INTERNAL void ir_print_func_flags(const ir_module *m, const ir_func *f, en_buf *out,
                                     unsigned flags);
/* checks every invariant listed at the top of this file; reports "internal error: IR
 * verifier: ..." diagnostics at the offending node; returns true when the module is sound */
EN_INTERNAL bool ir_verify(const ir_module *m, en_diags *d, const char *after_pass);

/* ---- eval.c: integer expressions whose variables are known ---------------------------- */
/* v as a value of integer type t: wrapped to its width, sign-extended when signed */
EN_INTERNAL int64_t ir_int_wrap(int64_t v, const ir_type *t);
EN_INTERNAL bool ir_is_int_like(const ir_type *t); /* an integer type or bool */
/* an integer expression on constants, with value_of giving the variables it reads (false:
 * unknown, and so is the expression): true and *out when it evaluates */
typedef bool (*ir_var_value)(const void *ctx, const ir_var *v, int64_t *out);
EN_INTERNAL bool ir_eval_int(const ir_expr *e, ir_var_value value_of, const void *ctx, int64_t *out);

#endif
