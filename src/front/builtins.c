/* builtins.c — MSL's built-in functions: the catalog, their signature rules, and their
 * lowering onto the intrinsics of src/ir/intrinsics.def.
 *
 * Needs: checked argument expressions (places left as places, so that reference
 * parameters such as frexp's exponent or simdgroup_load's matrix can be written).
 * Guarantees: a call with the wrong argument count or types is an error naming the
 * function and what it expected; a call that checks becomes an IR_E_CALL (pure
 * functions) or an IR_S_INTRINSIC appended to the current block whose result is read
 * back from a temporary (barriers, SIMD/quad functions, atomics, simdgroup matrices),
 * with every argument converted to the type the intrinsic expects. */
#include "check.h"

#include <string.h>

typedef enum sig {
    SIG_F1,        /* T(T), T float */
    SIG_F2,        /* T(T, T), T float */
    SIG_F3,        /* T(T, T, T), T float */
    SIG_FI1,       /* T(T), T float or integer (abs) */
    SIG_FI2,       /* T(T, T), float or integer (min, max) */
    SIG_FI3,       /* T(T, T, T), float or integer (clamp, max3, min3, median3) */
    SIG_MIX,       /* mix(T, T, T or scalar) */
    SIG_STEP,      /* step(T or scalar edge, T) */
    SIG_SMOOTHSTEP,/* smoothstep(T or scalar, T or scalar, T) */
    SIG_SIGN,      /* T(T) float */
    SIG_REL,       /* boolN(T), T float: isnan... */
    SIG_ALLANY,    /* bool(boolN) */
    SIG_SELECT,    /* T(T, T, bool or boolN) */
    SIG_DOT,       /* S(V, V) */
    SIG_LENGTH,    /* S(V) */
    SIG_NORMALIZE, /* V(V) */
    SIG_CROSS,     /* float3(float3, float3) */
    SIG_LDEXP,     /* T(T, intN) */
    SIG_FREXP,     /* T(T, thread intN&) */
    SIG_MODF,      /* T(T, thread T&) */
    SIG_I1,        /* T(T), integer */
    SIG_GNU_BITS,  /* int(uint) or int(ulong): clang's __builtin_ctz/clz/popcount[ll] */
    SIG_I2,        /* T(T, T), integer */
    SIG_I3,        /* T(T, T, T), integer */
    SIG_ABSDIFF,   /* unsigned T(T, T), integer */
    SIG_EXTRACT,   /* T(T, uint, uint) */
    SIG_INSERT,    /* T(T, T, uint, uint) */
    SIG_BARRIER,   /* void(mem_flags) */
    SIG_FENCE,     /* void(mem_flags, memory_order[, thread_scope]) */
    SIG_GROUP_RED, /* T(T): reductions, prefix sums, broadcast_first */
    SIG_GROUP_BIT, /* T(T), integers: and, or, xor */
    SIG_GROUP_LANE,/* T(T, ushort): shuffles, broadcast */
    SIG_GROUP_FILL,/* T(T, T, ushort [, ushort modulo]) */
    SIG_GROUP_BALLOT, /* vote(bool) */
    SIG_GROUP_PRED,   /* bool(bool) */
    SIG_GROUP_NONE_BOOL, /* bool() */
    SIG_GROUP_MASK,   /* vote() */
    SIG_ATOMIC_LOAD,
    SIG_ATOMIC_STORE,
    SIG_ATOMIC_XCHG,
    SIG_ATOMIC_CAS,
    SIG_ATOMIC_ARITH,   /* add, sub */
    SIG_ATOMIC_MINMAX,
    SIG_ATOMIC_BITS,    /* and, or, xor */
    SIG_MAT_FILL,
    SIG_MAT_LOAD,
    SIG_MAT_STORE,
    SIG_MAT_MUL,
    SIG_MAT_MULACC,
} sig;

typedef struct builtin {
    const char *name;
    ir_intrinsic intrinsic;
    sig sig;
} builtin;

static const builtin builtins[] = {
    {"threadgroup_barrier", IR_I_BARRIER_THREADGROUP, SIG_BARRIER},
    {"simdgroup_barrier", IR_I_BARRIER_SIMDGROUP, SIG_BARRIER},
    {"atomic_thread_fence", IR_I_THREAD_FENCE, SIG_FENCE},
#define GROUP(P, E)                                                                        \
    {#P "_sum", IR_I_##E##_SUM, SIG_GROUP_RED},                                            \
    {#P "_product", IR_I_##E##_PRODUCT, SIG_GROUP_RED},                                    \
    {#P "_min", IR_I_##E##_MIN, SIG_GROUP_RED},                                            \
    {#P "_max", IR_I_##E##_MAX, SIG_GROUP_RED},                                            \
    {#P "_and", IR_I_##E##_AND, SIG_GROUP_BIT},                                            \
    {#P "_or", IR_I_##E##_OR, SIG_GROUP_BIT},                                              \
    {#P "_xor", IR_I_##E##_XOR, SIG_GROUP_BIT},                                            \
    {#P "_prefix_inclusive_sum", IR_I_##E##_PREFIX_INCLUSIVE_SUM, SIG_GROUP_RED},          \
    {#P "_prefix_inclusive_product", IR_I_##E##_PREFIX_INCLUSIVE_PRODUCT, SIG_GROUP_RED},  \
    {#P "_prefix_exclusive_sum", IR_I_##E##_PREFIX_EXCLUSIVE_SUM, SIG_GROUP_RED},          \
    {#P "_prefix_exclusive_product", IR_I_##E##_PREFIX_EXCLUSIVE_PRODUCT, SIG_GROUP_RED},  \
    {#P "_shuffle", IR_I_##E##_SHUFFLE, SIG_GROUP_LANE},                                   \
    {#P "_shuffle_up", IR_I_##E##_SHUFFLE_UP, SIG_GROUP_LANE},                             \
    {#P "_shuffle_down", IR_I_##E##_SHUFFLE_DOWN, SIG_GROUP_LANE},                         \
    {#P "_shuffle_xor", IR_I_##E##_SHUFFLE_XOR, SIG_GROUP_LANE},                           \
    {#P "_shuffle_rotate_up", IR_I_##E##_SHUFFLE_ROTATE_UP, SIG_GROUP_LANE},               \
    {#P "_shuffle_rotate_down", IR_I_##E##_SHUFFLE_ROTATE_DOWN, SIG_GROUP_LANE},           \
    {#P "_shuffle_and_fill_up", IR_I_##E##_SHUFFLE_AND_FILL_UP, SIG_GROUP_FILL},           \
    {#P "_shuffle_and_fill_down", IR_I_##E##_SHUFFLE_AND_FILL_DOWN, SIG_GROUP_FILL},       \
    {#P "_broadcast", IR_I_##E##_BROADCAST, SIG_GROUP_LANE},                               \
    {#P "_broadcast_first", IR_I_##E##_BROADCAST_FIRST, SIG_GROUP_RED},                    \
    {#P "_ballot", IR_I_##E##_BALLOT, SIG_GROUP_BALLOT},                                   \
    {#P "_all", IR_I_##E##_ALL, SIG_GROUP_PRED},                                           \
    {#P "_any", IR_I_##E##_ANY, SIG_GROUP_PRED},                                           \
    {#P "_is_first", IR_I_##E##_IS_FIRST, SIG_GROUP_NONE_BOOL},                            \
    {#P "_active_threads_mask", IR_I_##E##_ACTIVE_THREADS_MASK, SIG_GROUP_MASK},
    GROUP(simd, SIMD)
    GROUP(quad, QUAD)
#undef GROUP
    {"atomic_load_explicit", IR_I_ATOMIC_LOAD, SIG_ATOMIC_LOAD},
    {"atomic_store_explicit", IR_I_ATOMIC_STORE, SIG_ATOMIC_STORE},
    {"atomic_exchange_explicit", IR_I_ATOMIC_EXCHANGE, SIG_ATOMIC_XCHG},
    {"atomic_compare_exchange_weak_explicit", IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK, SIG_ATOMIC_CAS},
    {"atomic_fetch_add_explicit", IR_I_ATOMIC_FETCH_ADD, SIG_ATOMIC_ARITH},
    {"atomic_fetch_sub_explicit", IR_I_ATOMIC_FETCH_SUB, SIG_ATOMIC_ARITH},
    {"atomic_fetch_min_explicit", IR_I_ATOMIC_FETCH_MIN, SIG_ATOMIC_MINMAX},
    {"atomic_fetch_max_explicit", IR_I_ATOMIC_FETCH_MAX, SIG_ATOMIC_MINMAX},
    {"atomic_fetch_and_explicit", IR_I_ATOMIC_FETCH_AND, SIG_ATOMIC_BITS},
    {"atomic_fetch_or_explicit", IR_I_ATOMIC_FETCH_OR, SIG_ATOMIC_BITS},
    {"atomic_fetch_xor_explicit", IR_I_ATOMIC_FETCH_XOR, SIG_ATOMIC_BITS},
    {"make_filled_simdgroup_matrix", IR_I_MATRIX_FILL, SIG_MAT_FILL},
    {"simdgroup_load", IR_I_MATRIX_LOAD, SIG_MAT_LOAD},
    {"simdgroup_store", IR_I_MATRIX_STORE, SIG_MAT_STORE},
    {"simdgroup_multiply", IR_I_MATRIX_MULTIPLY, SIG_MAT_MUL},
    {"simdgroup_multiply_accumulate", IR_I_MATRIX_MULTIPLY_ACCUMULATE, SIG_MAT_MULACC},
    {"abs", IR_I_ABS, SIG_FI1},
    {"fabs", IR_I_FABS, SIG_F1},
    {"min", IR_I_MIN, SIG_FI2},
    {"max", IR_I_MAX, SIG_FI2},
    {"fmin", IR_I_FMIN, SIG_F2},
    {"fmax", IR_I_FMAX, SIG_F2},
    {"clamp", IR_I_CLAMP, SIG_FI3},
    {"mix", IR_I_MIX, SIG_MIX},
    {"step", IR_I_STEP, SIG_STEP},
    {"smoothstep", IR_I_SMOOTHSTEP, SIG_SMOOTHSTEP},
    {"sign", IR_I_SIGN, SIG_SIGN},
    {"saturate", IR_I_SATURATE, SIG_F1},
    {"floor", IR_I_FLOOR, SIG_F1},
    {"ceil", IR_I_CEIL, SIG_F1},
    {"round", IR_I_ROUND, SIG_F1},
    {"rint", IR_I_RINT, SIG_F1},
    {"trunc", IR_I_TRUNC, SIG_F1},
    {"fract", IR_I_FRACT, SIG_F1},
    {"fmod", IR_I_FMOD, SIG_F2},
    {"fdim", IR_I_FDIM, SIG_F2},
    {"exp", IR_I_EXP, SIG_F1},
    {"exp2", IR_I_EXP2, SIG_F1},
    {"exp10", IR_I_EXP10, SIG_F1},
    {"log", IR_I_LOG, SIG_F1},
    {"log2", IR_I_LOG2, SIG_F1},
    {"log10", IR_I_LOG10, SIG_F1},
    {"pow", IR_I_POW, SIG_F2},
    {"powr", IR_I_POWR, SIG_F2},
    {"sqrt", IR_I_SQRT, SIG_F1},
    {"rsqrt", IR_I_RSQRT, SIG_F1},
    {"sin", IR_I_SIN, SIG_F1},
    {"cos", IR_I_COS, SIG_F1},
    {"tan", IR_I_TAN, SIG_F1},
    {"asin", IR_I_ASIN, SIG_F1},
    {"acos", IR_I_ACOS, SIG_F1},
    {"atan", IR_I_ATAN, SIG_F1},
    {"atan2", IR_I_ATAN2, SIG_F2},
    {"sinh", IR_I_SINH, SIG_F1},
    {"cosh", IR_I_COSH, SIG_F1},
    {"tanh", IR_I_TANH, SIG_F1},
    {"asinh", IR_I_ASINH, SIG_F1},
    {"acosh", IR_I_ACOSH, SIG_F1},
    {"atanh", IR_I_ATANH, SIG_F1},
    {"sinpi", IR_I_SINPI, SIG_F1},
    {"cospi", IR_I_COSPI, SIG_F1},
    {"tanpi", IR_I_TANPI, SIG_F1},
    {"fma", IR_I_FMA, SIG_F3},
    {"mad", IR_I_MAD, SIG_F3},
    {"dot", IR_I_DOT, SIG_DOT},
    {"length", IR_I_LENGTH, SIG_LENGTH},
    {"distance", IR_I_DISTANCE, SIG_DOT},
    {"normalize", IR_I_NORMALIZE, SIG_NORMALIZE},
    {"cross", IR_I_CROSS, SIG_CROSS},
    {"isnan", IR_I_ISNAN, SIG_REL},
    {"isinf", IR_I_ISINF, SIG_REL},
    {"isfinite", IR_I_ISFINITE, SIG_REL},
    {"signbit", IR_I_SIGNBIT, SIG_REL},
    {"select", IR_I_SELECT, SIG_SELECT},
    {"copysign", IR_I_COPYSIGN, SIG_F2},
    {"ldexp", IR_I_LDEXP, SIG_LDEXP},
    {"frexp", IR_I_FREXP_MANTISSA, SIG_FREXP},
    {"modf", IR_I_MODF_FRACTION, SIG_MODF},
    {"all", IR_I_ALL, SIG_ALLANY},
    {"any", IR_I_ANY, SIG_ALLANY},
    {"popcount", IR_I_POPCOUNT, SIG_I1},
    {"clz", IR_I_CLZ, SIG_I1},
    {"ctz", IR_I_CTZ, SIG_I1},
    /* the clang built-ins Metal's compiler accepts (MLX's FFT: `constexpr short power =
     * __builtin_ctz(radix);`): the operand is unsigned int, or unsigned long long for the
     * ll forms; the result an int, a constant for a constant operand */
    {"__builtin_ctz", IR_I_CTZ, SIG_GNU_BITS},
    {"__builtin_clz", IR_I_CLZ, SIG_GNU_BITS},
    {"__builtin_popcount", IR_I_POPCOUNT, SIG_GNU_BITS},
    {"__builtin_ctzll", IR_I_CTZ, SIG_GNU_BITS},
    {"__builtin_clzll", IR_I_CLZ, SIG_GNU_BITS},
    {"__builtin_popcountll", IR_I_POPCOUNT, SIG_GNU_BITS},
    {"mulhi", IR_I_MULHI, SIG_I2},
    {"mul24", IR_I_MUL24, SIG_I2},
    {"mad24", IR_I_MAD24, SIG_I3},
    {"rotate", IR_I_ROTATE, SIG_I2},
    {"addsat", IR_I_ADDSAT, SIG_I2},
    {"subsat", IR_I_SUBSAT, SIG_I2},
    {"absdiff", IR_I_ABSDIFF, SIG_ABSDIFF},
    {"hadd", IR_I_HADD, SIG_I2},
    {"rhadd", IR_I_RHADD, SIG_I2},
    {"max3", IR_I_MAX3, SIG_FI3},
    {"min3", IR_I_MIN3, SIG_FI3},
    {"median3", IR_I_MEDIAN3, SIG_FI3},
    {"extract_bits", IR_I_EXTRACT_BITS, SIG_EXTRACT},
    {"insert_bits", IR_I_INSERT_BITS, SIG_INSERT},
    {"reverse_bits", IR_I_REVERSE_BITS, SIG_I1},
};

static const builtin *find_builtin(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < EN_COUNT(builtins); i++)
        if (en_streq(builtins[i].name, name)) return &builtins[i];
    return NULL;
}

bool ck_is_builtin(const char *name) { return find_builtin(name) != NULL; }

/* MSL built-ins that enigma does not provide: named in the error rather than "undeclared" */
const char *ck_unsupported_builtin(const char *name) {
    static const char *const missing[] = {
        "cbrt", "asinpi", "acospi", "atanpi", "atan2pi",
        "ilogb", "logb", "erf", "erfc", "tgamma", "lgamma", "hypot", "expm1", "log1p",
        "faceforward", "reflect", "refract", "determinant", "transpose", "pack_float_to_unorm4x8",
        "unpack_unorm4x8_to_float", "simdgroup_matrix_storage",
        "quad_shuffle_rotate", "simd_vote_any", "dfdx", "dfdy", "fwidth", "discard_fragment",
        "get_width", "get_height", "sample", "read", "write",
    };
    if (!name) return NULL;
    for (size_t i = 0; i < EN_COUNT(missing); i++)
        if (en_streq(missing[i], name)) return missing[i];
    return NULL;
}

/* ---- helpers ------------------------------------------------------------------------ */
typedef struct call {
    checker *ck;
    const builtin *b;
    ir_expr **args;
    en_loc *locs;
    int n;
    en_loc loc;
    bool precise;
} call;

static const char *tn(call *k, const ir_type *t) { return ck_type_name(k->ck, t); }

static bool count_ok(call *k, int lo, int hi) {
    if (k->n >= lo && k->n <= hi) return true;
    if (lo == hi)
        en_error(k->ck->diags, k->loc, "call to '%s' needs %d argument%s, got %d", k->b->name, lo,
                 lo == 1 ? "" : "s", k->n);
    else
        en_error(k->ck->diags, k->loc, "call to '%s' needs %d to %d arguments, got %d",
                 k->b->name, lo, hi, k->n);
    return false;
}

static bool bad_arg(call *k, int i, const char *expected) {
    en_error(k->ck->diags, k->locs[i], "argument %d of '%s' must be %s, got '%s'", i + 1,
             k->b->name, expected, tn(k, k->args[i]->type));
    return false;
}

static ir_type *unpacked(checker *ck, ir_type *t) {
    if (t && t->kind == IR_T_VEC && t->packed) return ir_type_vec(ck->m, t->elem, t->count, false);
    return t;
}

static bool is_float_like(const ir_type *t) { return ir_is_float(ir_scalar_of(t)); }
static bool is_int_like(const ir_type *t) { return ir_is_integer(ir_scalar_of(t)); }
static bool is_numeric(const ir_type *t) {
    return !ck_is_vote(t) && ck_is_arith(t) && ir_scalar_of(t)->kind != IR_T_BOOL;
}

enum { WANT_FLOAT = 1, WANT_INT = 2 };

/* The generic type T shared by arguments [0, count): the one vector type among them
 * (scalars splat to it), else the common scalar type, with constants adapting to the
 * others. Integer scalars become float for float-only functions. */
static ir_type *unify(call *k, int count, int want) {
    checker *ck = k->ck;
    ir_type *vec = NULL;
    ir_type *scalar = NULL;
    bool scalar_from_const = true;
    for (int i = 0; i < count; i++) {
        ir_type *t = k->args[i]->type;
        if (!is_numeric(t)) {
            bad_arg(k, i, want == WANT_FLOAT ? "a floating-point scalar or vector"
                          : want == WANT_INT ? "an integer scalar or vector"
                                             : "a numeric scalar or vector");
            return NULL;
        }
        if (t->kind == IR_T_VEC) {
            t = unpacked(ck, t);
            if (vec && vec != t) {
                en_error(ck->diags, k->locs[i],
                         "arguments of '%s' must have one type, got '%s' and '%s'", k->b->name,
                         tn(k, vec), tn(k, t));
                return NULL;
            }
            vec = t;
            continue;
        }
        bool is_const = ck_is_const(k->args[i]);
        if (!scalar || (scalar_from_const && !is_const)) {
            if (!scalar || scalar_from_const) scalar = t;
            scalar_from_const = is_const;
        } else if (scalar != t && !is_const) {
            /* two variables of different scalar types: the usual arithmetic conversion */
            ir_expr *a = ir_expr_new(ck->m, IR_E_CONST, scalar, k->loc, 0);
            ir_expr *b = ir_expr_new(ck->m, IR_E_CONST, t, k->loc, 0);
            if (ck_arith_operands(ck, &a, &b, ",", k->loc)) scalar = a->type;
        } else if (scalar != t && is_const && scalar_from_const && ir_is_float(t) &&
                   !ir_is_float(scalar)) {
            scalar = t; /* max(1, 2.0f): float */
        }
    }
    ir_type *r = vec ? vec : scalar;
    if (!r) return NULL;
    if (vec && scalar && !scalar_from_const && is_float_like(vec) != ir_is_float(scalar) &&
        !ir_is_float(vec->elem)) {
        en_error(ck->diags, k->loc, "arguments of '%s' must have one type, got '%s' and '%s'",
                 k->b->name, tn(k, vec), tn(k, scalar));
        return NULL;
    }
    if (want == WANT_FLOAT && !is_float_like(r)) {
        if (r->kind != IR_T_VEC) return ck_t(ck, IR_T_F32);
        en_error(ck->diags, k->loc, "call to '%s' needs floating-point arguments, got '%s'",
                 k->b->name, tn(k, r));
        return NULL;
    }
    if (want == WANT_INT && !is_int_like(r)) {
        en_error(ck->diags, k->loc, "call to '%s' needs integer arguments, got '%s'", k->b->name,
                 tn(k, r));
        return NULL;
    }
    return r;
}

static ir_expr *conv(call *k, int i, ir_type *t) {
    return ck_convert(k->ck, k->args[i], t, k->locs[i]);
}

static ir_expr *pure(call *k, ir_type *result, ir_expr **args, int n) {
    ir_expr *e = ir_call(k->ck->m, k->b->intrinsic, result, args, n, k->loc);
    e->precise = k->precise;
    return e;
}

/* T(T...) over the first n arguments */
static ir_expr *pure_same(call *k, int n, int want) {
    ir_type *t = unify(k, n, want);
    if (!t) return NULL;
    ir_expr *args[4];
    for (int i = 0; i < n; i++) args[i] = conv(k, i, t);
    return pure(k, t, args, n);
}

/* an IR_S_INTRINSIC with its result in a temporary; returns the read of it (or a void
 * constant-less marker when there is no result) */
static ir_expr *effect(call *k, ir_type *result, ir_expr **args, int n) {
    checker *ck = k->ck;
    ir_var *r = result ? ck_temp(ck, result, k->loc) : NULL;
    ck_emit(ck, ir_intrinsic_stmt(ck->m, k->b->intrinsic, r, args, n, k->loc));
    if (r) return ir_var_ref(ck->m, r, k->loc);
    return ir_expr_new(ck->m, IR_E_CONST, ck_t(ck, IR_T_VOID), k->loc, 0);
}

/* a place argument (T& parameter) of type `want` (NULL: any) in a thread space */
static ir_expr *ref_arg(call *k, int i, const char *what) {
    ir_expr *a = k->args[i];
    if (!ir_is_place(a)) {
        en_error(k->ck->diags, k->locs[i], "argument %d of '%s' must be %s that can be written",
                 i + 1, k->b->name, what);
        return NULL;
    }
    return a;
}

/* ---- SIMD and quad ------------------------------------------------------------------ */
static bool group_type_ok(call *k, int i, bool ints_only) {
    const ir_type *t = k->args[i]->type;
    const ir_type *s = ir_scalar_of(t);
    bool ok = is_numeric(t) && s->kind != IR_T_I64 && s->kind != IR_T_U64 &&
              (!ints_only || ir_is_integer(s));
    if (!ok)
        return bad_arg(k, i, ints_only ? "an integer scalar or vector (not long or ulong)"
                                       : "an integer or floating-point scalar or vector (not "
                                         "bool, long or ulong)");
    return true;
}

static ir_expr *lane_arg(call *k, int i) {
    if (!is_int_like(k->args[i]->type) || k->args[i]->type->kind == IR_T_VEC) {
        bad_arg(k, i, "an integer lane, delta or mask");
        return NULL;
    }
    return conv(k, i, ck_t(k->ck, IR_T_U16));
}

static ir_expr *bool_arg(call *k, int i) {
    ir_type *t = k->args[i]->type;
    if (!ir_is_scalar(t)) {
        bad_arg(k, i, "a bool");
        return NULL;
    }
    return ck_condition(k->ck, k->args[i], k->locs[i]);
}

static ir_expr *group_call(call *k) {
    checker *ck = k->ck;
    ir_expr *args[4];
    switch (k->b->sig) {
    case SIG_GROUP_RED:
    case SIG_GROUP_BIT: {
        if (!count_ok(k, 1, 1) || !group_type_ok(k, 0, k->b->sig == SIG_GROUP_BIT)) return NULL;
        ir_type *t = unpacked(ck, k->args[0]->type);
        args[0] = conv(k, 0, t);
        return effect(k, t, args, 1);
    }
    case SIG_GROUP_LANE: {
        if (!count_ok(k, 2, 2) || !group_type_ok(k, 0, false)) return NULL;
        ir_type *t = unpacked(ck, k->args[0]->type);
        args[0] = conv(k, 0, t);
        if (!(args[1] = lane_arg(k, 1))) return NULL;
        return effect(k, t, args, 2);
    }
    case SIG_GROUP_FILL: {
        if (!count_ok(k, 3, 4) || !group_type_ok(k, 0, false)) return NULL;
        ir_type *t = unpacked(ck, k->args[0]->type);
        if (unpacked(ck, k->args[1]->type) != t) {
            bad_arg(k, 1, tn(k, t));
            return NULL;
        }
        args[0] = conv(k, 0, t);
        args[1] = conv(k, 1, t);
        if (!(args[2] = lane_arg(k, 2))) return NULL;
        if (k->n == 4) {
            if (!(args[3] = lane_arg(k, 3))) return NULL;
            int64_t mod;
            if (ck_const_int(ck, k->args[3], &mod) &&
                !(mod == 2 || mod == 4 || mod == 8 || mod == 16 || mod == 32)) {
                en_error(ck->diags, k->locs[3], "the modulo of '%s' must be 2, 4, 8, 16 or 32, got %lld",
                         k->b->name, (long long)mod);
                return NULL;
            }
        }
        return effect(k, t, args, k->n);
    }
    case SIG_GROUP_BALLOT:
        if (!count_ok(k, 1, 1) || !(args[0] = bool_arg(k, 0))) return NULL;
        /* a 64-bit mask that the checker types simd_vote (kind U64 in the IR) */
        return effect(k, ck_vote_type(ck->m), args, 1);
    case SIG_GROUP_PRED:
        if (!count_ok(k, 1, 1) || !(args[0] = bool_arg(k, 0))) return NULL;
        return effect(k, ck_t(ck, IR_T_BOOL), args, 1);
    case SIG_GROUP_NONE_BOOL:
        if (!count_ok(k, 0, 0)) return NULL;
        return effect(k, ck_t(ck, IR_T_BOOL), args, 0);
    case SIG_GROUP_MASK:
        if (!count_ok(k, 0, 0)) return NULL;
        return effect(k, ck_vote_type(ck->m), args, 0);
    default:
        return NULL;
    }
}

/* ---- fences ----------------------------------------------------------------------- */
/* argument i as a constant in [lo, hi], or an error naming what it must be */
static bool fence_constant(call *k, int i, int64_t lo, int64_t hi, const char *what, int64_t *out) {
    if (ir_is_integer(k->args[i]->type) && ck_const_int(k->ck, k->args[i], out) && *out >= lo && *out <= hi)
        return true;
    en_error(k->ck->diags, k->locs[i], "argument %d of '%s' must be %s, known at compile time", i + 1,
             k->b->name, what);
    return false;
}

/* atomic_thread_fence(mem_flags flags, memory_order order, thread_scope scope =
 * thread_scope_device) (Metal spec, "Fence Functions"): the three values are constants in
 * the IR, as backends choose the fence instruction from them */
static ir_expr *fence_call(call *k) {
    checker *ck = k->ck;
    if (!count_ok(k, 2, 3)) return NULL;
    int64_t flags, order, scope = IR_SCOPE_DEVICE;
    if (!fence_constant(k, 0, 0, IR_MEM_DEVICE | IR_MEM_THREADGROUP | IR_MEM_TEXTURE,
                        "mem_flags (mem_none, mem_device, mem_threadgroup, mem_texture, combined with |)",
                        &flags) ||
        !fence_constant(k, 1, IR_ORDER_RELAXED, IR_ORDER_SEQ_CST, "a memory_order", &order) ||
        (k->n > 2 && !fence_constant(k, 2, IR_SCOPE_THREAD, IR_SCOPE_SIMDGROUP,
                                     "a thread_scope (thread, simdgroup, threadgroup, device or system)",
                                     &scope)))
        return NULL;
    ir_expr *args[3] = {
        ir_const_uint(ck->m, ck_t(ck, IR_T_U32), (uint64_t)flags, k->locs[0]),
        ir_const_int(ck->m, ck_t(ck, IR_T_I32), order, k->locs[1]),
        ir_const_int(ck->m, ck_t(ck, IR_T_I32), scope, k->n > 2 ? k->locs[2] : k->loc),
    };
    return effect(k, NULL, args, 3);
}

/* ---- atomics ---------------------------------------------------------------------- */
static bool order_ok(call *k, int i) {
    int64_t v;
    if (!ck_const_int(k->ck, k->args[i], &v)) {
        en_error(k->ck->diags, k->locs[i], "the memory order of '%s' must be memory_order_relaxed",
                 k->b->name);
        return false;
    }
    if (v != 0) {
        en_error(k->ck->diags, k->locs[i],
                 "only memory_order_relaxed is supported in Metal; '%s' got another order",
                 k->b->name);
        return false;
    }
    return true;
}

static ir_type *atomic_object(call *k) {
    ir_expr *a = k->args[0];
    ir_type *t = a->type;
    if (t->kind != IR_T_PTR || !t->elem || t->elem->kind != IR_T_ATOMIC) {
        bad_arg(k, 0, "a pointer to an atomic type");
        return NULL;
    }
    if (t->space != IR_SPACE_DEVICE && t->space != IR_SPACE_THREADGROUP) {
        en_error(k->ck->diags, k->locs[0],
                 "the atomic object of '%s' must be in device or threadgroup memory, not %s",
                 k->b->name, ir_space_name(t->space));
        return NULL;
    }
    if (t->is_const && k->b->sig != SIG_ATOMIC_LOAD) {
        en_error(k->ck->diags, k->locs[0], "the atomic object of '%s' is const", k->b->name);
        return NULL;
    }
    return t->elem;
}

static ir_expr *value_arg(call *k, int i, ir_type *t) {
    ir_type *at = k->args[i]->type;
    if (!ir_is_scalar(at) || ck_is_vote(at)) {
        bad_arg(k, i, tn(k, t));
        return NULL;
    }
    return conv(k, i, t);
}

static ir_expr *atomic_call(call *k) {
    checker *ck = k->ck;
    ir_expr *args[3];
    sig s = k->b->sig;
    int need = s == SIG_ATOMIC_LOAD ? 2 : s == SIG_ATOMIC_CAS ? 5 : 3;
    if (!count_ok(k, need, need)) return NULL;
    ir_type *at = atomic_object(k);
    if (!at) return NULL;
    ir_type *vt = at->elem;
    const char *elem_name = tn(k, at);
    if (vt->kind == IR_T_F32) {
        if (!(s == SIG_ATOMIC_LOAD || s == SIG_ATOMIC_STORE || s == SIG_ATOMIC_XCHG ||
              s == SIG_ATOMIC_ARITH)) {
            en_error(ck->diags, k->loc, "'%s' is not available for atomic_float", k->b->name);
            return NULL;
        }
        if (k->args[0]->type->space != IR_SPACE_DEVICE) {
            en_error(ck->diags, k->locs[0], "atomic_float is supported only in device memory");
            return NULL;
        }
    }
    if (vt->kind == IR_T_BOOL && (s == SIG_ATOMIC_ARITH || s == SIG_ATOMIC_MINMAX || s == SIG_ATOMIC_BITS)) {
        en_error(ck->diags, k->loc, "'%s' is not available for %s", k->b->name, elem_name);
        return NULL;
    }
    if ((vt->kind == IR_T_U64 || vt->kind == IR_T_I64) && s != SIG_ATOMIC_MINMAX &&
        s != SIG_ATOMIC_LOAD && s != SIG_ATOMIC_STORE) {
        en_error(ck->diags, k->loc, "'%s' is not available for %s (only min and max are)",
                 k->b->name, elem_name);
        return NULL;
    }
    args[0] = k->args[0];
    switch (s) {
    case SIG_ATOMIC_LOAD:
        if (!order_ok(k, 1)) return NULL;
        return effect(k, vt, args, 1);
    case SIG_ATOMIC_STORE:
        if (!(args[1] = value_arg(k, 1, vt)) || !order_ok(k, 2)) return NULL;
        effect(k, NULL, args, 2);
        return ir_expr_new(ck->m, IR_E_CONST, ck_t(ck, IR_T_VOID), k->loc, 0);
    case SIG_ATOMIC_CAS: {
        ir_type *et = k->args[1]->type;
        if (et->kind != IR_T_PTR || et->elem != vt || et->space != IR_SPACE_THREAD) {
            en_error(ck->diags, k->locs[1], "argument 2 of '%s' must be 'thread %s*', got '%s'",
                     k->b->name, tn(k, vt), tn(k, et));
            return NULL;
        }
        args[1] = k->args[1];
        if (!(args[2] = value_arg(k, 2, vt)) || !order_ok(k, 3) || !order_ok(k, 4)) return NULL;
        return effect(k, ck_t(ck, IR_T_BOOL), args, 3);
    }
    default:
        if (!(args[1] = value_arg(k, 1, vt)) || !order_ok(k, 2)) return NULL;
        return effect(k, vt, args, 2);
    }
}

/* ---- simdgroup matrices ------------------------------------------------------------- */
static bool is_matrix(const ir_type *t) { return t && t->kind == IR_T_SIMD_MATRIX; }

/* where a matrix result goes: the variable itself when the place is one, else a temporary
 * assigned back */
static ir_expr *matrix_effect(call *k, ir_expr *dest, ir_expr **args, int n) {
    checker *ck = k->ck;
    if (dest->kind == IR_E_VAR) {
        ck_emit(ck, ir_intrinsic_stmt(ck->m, k->b->intrinsic, dest->var, args, n, k->loc));
        ck_mark_assigned(dest);
    } else {
        ir_var *t = ck_temp(ck, dest->type, k->loc);
        ck_emit(ck, ir_intrinsic_stmt(ck->m, k->b->intrinsic, t, args, n, k->loc));
        ck_emit(ck, ir_assign(ck->m, dest, ir_var_ref(ck->m, t, k->loc), k->loc));
        ck_mark_assigned(dest);
    }
    return ir_expr_new(ck->m, IR_E_CONST, ck_t(ck, IR_T_VOID), k->loc, 0);
}

static ir_expr *matrix_ptr_args(call *k, int first, ir_type *elem, ir_expr **out) {
    checker *ck = k->ck;
    ir_type *pt = k->args[first]->type;
    if (pt->kind == IR_T_ARRAY && ir_is_place(k->args[first])) {
        k->args[first] = ck_decay(ck, k->args[first], k->locs[first]);
        pt = k->args[first]->type;
    }
    if (pt->kind != IR_T_PTR || pt->elem != elem ||
        (pt->space != IR_SPACE_DEVICE && pt->space != IR_SPACE_THREADGROUP &&
         pt->space != IR_SPACE_CONSTANT)) {
        en_error(ck->diags, k->locs[first],
                 "argument %d of '%s' must point to %s in device or threadgroup memory, got '%s'",
                 first + 1, k->b->name, tn(k, elem), tn(k, pt));
        return NULL;
    }
    if (k->b->sig == SIG_MAT_STORE && (pt->is_const || pt->space == IR_SPACE_CONSTANT)) {
        en_error(ck->diags, k->locs[first], "'%s' cannot store through '%s'", k->b->name, tn(k, pt));
        return NULL;
    }
    out[0] = k->args[first];
    ir_type *ul = ck_t(ck, IR_T_U64);
    ir_type *ul2 = ir_type_vec(ck->m, ul, 2, false);
    if (k->n > first + 1) {
        if (!is_int_like(k->args[first + 1]->type) || k->args[first + 1]->type->kind == IR_T_VEC) {
            bad_arg(k, first + 1, "an integer elements_per_row");
            return NULL;
        }
        out[1] = conv(k, first + 1, ul);
    } else {
        out[1] = ir_const_uint(ck->m, ul, 8, k->loc);
    }
    if (k->n > first + 2) {
        ir_type *ot = k->args[first + 2]->type;
        /* an integer converts to ulong2 as both coordinates: ggml writes `0` */
        bool scalar = ir_is_integer(ot) && ot->kind != IR_T_VEC;
        if (!scalar && (ot->kind != IR_T_VEC || ot->count != 2 || !ir_is_integer(ot->elem))) {
            bad_arg(k, first + 2, "a ulong2 origin");
            return NULL;
        }
        out[2] = conv(k, first + 2, ul2);
    } else {
        out[2] = ck_convert(ck, ir_const_uint(ck->m, ul, 0, k->loc), ul2, k->loc);
    }
    if (k->n > first + 3) {
        if (!(out[3] = bool_arg(k, first + 3))) return NULL;
    } else {
        out[3] = ir_const_bool(ck->m, false, k->loc);
    }
    return out[0];
}

static ir_expr *matrix_call(call *k, const ck_targ *targs, int targ_count) {
    checker *ck = k->ck;
    ir_expr *args[5];
    switch (k->b->sig) {
    case SIG_MAT_FILL: {
        /* <T, Cols, Rows = Cols> */
        if (targ_count < 2 || targ_count > 3 || !targs[0].type || targs[1].type ||
            (targ_count == 3 && (targs[2].type || targs[2].value != 8)) || targs[1].value != 8 ||
            !(targs[0].type->kind == IR_T_F32 || targs[0].type->kind == IR_T_F16 ||
              targs[0].type->kind == IR_T_BF16)) {
            en_error(ck->diags, k->loc,
                     "'make_filled_simdgroup_matrix' needs template arguments <T, 8> or <T, 8, 8> with T "
                     "float, half or bfloat");
            return NULL;
        }
        if (!count_ok(k, 1, 1)) return NULL;
        if (!is_numeric(k->args[0]->type) || k->args[0]->type->kind == IR_T_VEC) {
            bad_arg(k, 0, tn(k, targs[0].type));
            return NULL;
        }
        args[0] = conv(k, 0, targs[0].type);
        return effect(k, ir_type_matrix(ck->m, targs[0].type), args, 1);
    }
    case SIG_MAT_LOAD: {
        if (!count_ok(k, 2, 5)) return NULL;
        ir_expr *d = ref_arg(k, 0, "a simdgroup matrix");
        if (!d) return NULL;
        if (!is_matrix(d->type)) {
            bad_arg(k, 0, "a simdgroup matrix");
            return NULL;
        }
        if (!matrix_ptr_args(k, 1, d->type->elem, args)) return NULL;
        return matrix_effect(k, d, args, 4);
    }
    case SIG_MAT_STORE: {
        if (!count_ok(k, 2, 5)) return NULL;
        if (!is_matrix(k->args[0]->type)) {
            bad_arg(k, 0, "a simdgroup matrix");
            return NULL;
        }
        args[0] = k->args[0];
        if (!matrix_ptr_args(k, 1, k->args[0]->type->elem, args + 1)) return NULL;
        effect(k, NULL, args, 5);
        return ir_expr_new(ck->m, IR_E_CONST, ck_t(ck, IR_T_VOID), k->loc, 0);
    }
    case SIG_MAT_MUL:
    case SIG_MAT_MULACC: {
        int need = k->b->sig == SIG_MAT_MUL ? 3 : 4;
        if (!count_ok(k, need, need)) return NULL;
        ir_expr *d = ref_arg(k, 0, "a simdgroup matrix");
        if (!d) return NULL;
        for (int i = 0; i < need; i++) {
            if (!is_matrix(k->args[i]->type)) {
                bad_arg(k, i, "a simdgroup matrix");
                return NULL;
            }
        }
        for (int i = 1; i < need; i++) args[i - 1] = k->args[i];
        return matrix_effect(k, d, args, need - 1);
    }
    default:
        return NULL;
    }
}

/* ---- math --------------------------------------------------------------------------- */
static ir_expr *math_call(call *k) {
    checker *ck = k->ck;
    ir_expr *args[4];
    switch (k->b->sig) {
    case SIG_F1: case SIG_SIGN:
        if (!count_ok(k, 1, 1)) return NULL;
        return pure_same(k, 1, WANT_FLOAT);
    case SIG_F2:
        if (!count_ok(k, 2, 2)) return NULL;
        return pure_same(k, 2, WANT_FLOAT);
    case SIG_F3: case SIG_MIX: case SIG_SMOOTHSTEP:
        if (!count_ok(k, 3, 3)) return NULL;
        return pure_same(k, 3, WANT_FLOAT);
    case SIG_STEP:
        if (!count_ok(k, 2, 2)) return NULL;
        return pure_same(k, 2, WANT_FLOAT);
    case SIG_FI1:
        if (!count_ok(k, 1, 1)) return NULL;
        return pure_same(k, 1, 0);
    case SIG_FI2:
        if (!count_ok(k, 2, 2)) return NULL;
        return pure_same(k, 2, 0);
    case SIG_FI3:
        if (!count_ok(k, 3, 3)) return NULL;
        return pure_same(k, 3, 0);
    case SIG_I1:
        if (!count_ok(k, 1, 1)) return NULL;
        return pure_same(k, 1, WANT_INT);
    case SIG_GNU_BITS: {
        if (!count_ok(k, 1, 1)) return NULL;
        bool wide = k->b->name[strlen(k->b->name) - 1] == 'l';
        ir_type *ut = ck_t(ck, wide ? IR_T_U64 : IR_T_U32), *it = ck_t(ck, IR_T_I32);
        if (!is_int_like(k->args[0]->type) || k->args[0]->type->kind == IR_T_VEC) {
            bad_arg(k, 0, wide ? "an unsigned long long" : "an unsigned int");
            return NULL;
        }
        args[0] = conv(k, 0, ut);
        int64_t v;
        if (ck_const_int(ck, args[0], &v)) {
            uint64_t u = (uint64_t)v & (wide ? UINT64_MAX : UINT32_MAX);
            int bits = wide ? 64 : 32, r = 0;
            if (k->b->intrinsic == IR_I_POPCOUNT) {
                for (; u; u &= u - 1) r++;
            } else if (u == 0) {
                en_error(ck->diags, k->locs[0], "'%s' of zero is undefined", k->b->name);
                return NULL;
            } else if (k->b->intrinsic == IR_I_CTZ) {
                while (!(u >> r & 1)) r++;
            } else {
                while (!(u >> (bits - 1 - r) & 1)) r++;
            }
            return ir_const_int(ck->m, it, r, k->loc);
        }
        return ck_convert(ck, pure(k, ut, args, 1), it, k->loc);
    }
    case SIG_I2:
        if (!count_ok(k, 2, 2)) return NULL;
        return pure_same(k, 2, WANT_INT);
    case SIG_I3:
        if (!count_ok(k, 3, 3)) return NULL;
        return pure_same(k, 3, WANT_INT);
    case SIG_ABSDIFF: {
        if (!count_ok(k, 2, 2)) return NULL;
        ir_type *t = unify(k, 2, WANT_INT);
        if (!t) return NULL;
        const ir_type *s = ir_scalar_of(t);
        ir_type *u = ck_t(ck, s->kind == IR_T_I8 ? IR_T_U8 : s->kind == IR_T_I16 ? IR_T_U16
                              : s->kind == IR_T_I32 ? IR_T_U32 : s->kind == IR_T_I64 ? IR_T_U64
                                                                                   : s->kind);
        ir_type *r = t->kind == IR_T_VEC ? ir_type_vec(ck->m, u, t->count, false) : u;
        args[0] = conv(k, 0, t);
        args[1] = conv(k, 1, t);
        return pure(k, r, args, 2);
    }
    case SIG_REL: {
        if (!count_ok(k, 1, 1)) return NULL;
        ir_type *t = unify(k, 1, WANT_FLOAT);
        if (!t) return NULL;
        args[0] = conv(k, 0, t);
        return pure(k, ck_bool_like(ck, t), args, 1);
    }
    case SIG_ALLANY: {
        if (!count_ok(k, 1, 1)) return NULL;
        ir_type *t = k->args[0]->type;
        if (ir_scalar_of(t)->kind != IR_T_BOOL || ck_is_vote(t)) {
            bad_arg(k, 0, "a bool vector");
            return NULL;
        }
        if (t->kind != IR_T_VEC) return k->args[0]; /* all(b) of a scalar is b */
        args[0] = conv(k, 0, unpacked(ck, t));
        return pure(k, ck_t(ck, IR_T_BOOL), args, 1);
    }
    case SIG_SELECT: {
        if (!count_ok(k, 3, 3)) return NULL;
        ir_type *t = unify(k, 2, 0);
        if (!t) {
            /* select of bools */
            return NULL;
        }
        ir_type *ct = k->args[2]->type;
        ir_type *want = ck_bool_like(ck, t);
        if (ir_is_integer(ct) && ct->kind != IR_T_VEC) {
            /* a scalar integer converts to the bool parameter, as in any C++ call (ggml:
             * select(1, -1, signs & mask)) */
            k->args[2] = ck_condition(ck, k->args[2], k->locs[2]);
            ct = k->args[2]->type;
        }
        if (ir_scalar_of(ct)->kind != IR_T_BOOL || (ct->kind == IR_T_VEC && unpacked(ck, ct) != want)) {
            bad_arg(k, 2, tn(k, want));
            return NULL;
        }
        args[0] = conv(k, 0, t);
        args[1] = conv(k, 1, t);
        args[2] = conv(k, 2, want); /* a scalar condition applies to every lane */
        return pure(k, t, args, 3);
    }
    case SIG_DOT: case SIG_LENGTH: case SIG_NORMALIZE: {
        int n = k->b->sig == SIG_DOT ? 2 : 1;
        if (!count_ok(k, n, n)) return NULL;
        ir_type *t = unify(k, n, WANT_FLOAT);
        if (!t) return NULL;
        for (int i = 0; i < n; i++) args[i] = conv(k, i, t);
        ir_type *r = k->b->sig == SIG_NORMALIZE ? t : (ir_type *)ir_scalar_of(t);
        return pure(k, r, args, n);
    }
    case SIG_CROSS: {
        if (!count_ok(k, 2, 2)) return NULL;
        ir_type *t = unify(k, 2, WANT_FLOAT);
        if (!t) return NULL;
        if (t->kind != IR_T_VEC || t->count != 3) {
            en_error(ck->diags, k->loc, "call to 'cross' needs 3-component vectors, got '%s'", tn(k, t));
            return NULL;
        }
        args[0] = conv(k, 0, t);
        args[1] = conv(k, 1, t);
        return pure(k, t, args, 2);
    }
    case SIG_LDEXP: {
        if (!count_ok(k, 2, 2)) return NULL;
        ir_type *t = unify(k, 1, WANT_FLOAT);
        if (!t) return NULL;
        ir_type *it = ck_t(ck, IR_T_I32);
        if (t->kind == IR_T_VEC) it = ir_type_vec(ck->m, it, t->count, false);
        if (!is_int_like(k->args[1]->type) || ir_lanes(k->args[1]->type) > ir_lanes(t)) {
            bad_arg(k, 1, tn(k, it));
            return NULL;
        }
        args[0] = conv(k, 0, t);
        args[1] = conv(k, 1, it);
        return pure(k, t, args, 2);
    }
    case SIG_FREXP:
    case SIG_MODF: {
        if (!count_ok(k, 2, 2)) return NULL;
        ir_type *t = unify(k, 1, WANT_FLOAT);
        if (!t) return NULL;
        ir_type *want = t;
        if (k->b->sig == SIG_FREXP) {
            want = ck_t(ck, IR_T_I32);
            if (t->kind == IR_T_VEC) want = ir_type_vec(ck->m, want, t->count, false);
        }
        ir_expr *dest = ref_arg(k, 1, tn(k, want));
        if (!dest) return NULL;
        if (unpacked(ck, dest->type) != want) {
            bad_arg(k, 1, tn(k, want));
            return NULL;
        }
        /* x once, in a temporary, so that writing the second result cannot change it */
        ir_var *x = ck_temp_init(ck, t, conv(k, 0, t), k->loc);
        args[0] = ir_var_ref(ck->m, x, k->loc);
        ir_expr *second;
        if (k->b->sig == SIG_FREXP) {
            second = ir_call(ck->m, IR_I_FREXP_EXPONENT, want, args, 1, k->loc);
        } else {
            second = ir_call(ck->m, IR_I_TRUNC, t, args, 1, k->loc);
        }
        ck_emit(ck, ir_assign(ck->m, dest, ck_convert(ck, second, dest->type, k->loc), k->loc));
        ck_mark_assigned(dest);
        return pure(k, t, args, 1);
    }
    case SIG_EXTRACT:
    case SIG_INSERT: {
        int n = k->b->sig == SIG_EXTRACT ? 1 : 2;
        if (!count_ok(k, n + 2, n + 2)) return NULL;
        ir_type *t = unify(k, n, WANT_INT);
        if (!t) return NULL;
        for (int i = 0; i < n; i++) args[i] = conv(k, i, t);
        for (int i = n; i < n + 2; i++) {
            if (!is_int_like(k->args[i]->type) || k->args[i]->type->kind == IR_T_VEC) {
                bad_arg(k, i, "a uint");
                return NULL;
            }
            args[i] = conv(k, i, ck_t(ck, IR_T_U32));
        }
        return pure(k, t, args, n + 2);
    }
    default:
        return NULL;
    }
}

ir_expr *ck_builtin_call(checker *ck, const char *name, bool precise, ir_expr **args,
                         en_loc *arg_locs, int n, const ck_targ *targs, int targ_count,
                         en_loc loc) {
    const builtin *b = find_builtin(name);
    if (!b) return NULL;
    for (int i = 0; i < n; i++)
        if (!args[i] || !args[i]->type) return NULL;
    call k = {ck, b, args, arg_locs, n, loc, precise};
    for (int i = 0; i < n; i++) {
        if (args[i]->type->kind == IR_T_VOID) {
            en_error(ck->diags, arg_locs[i], "argument %d of '%s' has no value", i + 1, name);
            return NULL;
        }
    }
    if (targ_count && b->sig != SIG_MAT_FILL) {
        en_error(ck->diags, loc, "'%s' takes no template arguments", name);
        return NULL;
    }
    if (!ck->fn && ir_intrinsic_class_of(b->intrinsic) != IR_IC_PURE) {
        en_error(ck->diags, loc, "'%s' can only be called inside a function", name);
        return NULL;
    }
    switch (b->sig) {
    case SIG_BARRIER: {
        if (!count_ok(&k, 1, 1)) return NULL;
        int64_t flags;
        if (!ir_is_integer(args[0]->type) || !ck_const_int(ck, args[0], &flags) || flags < 0 ||
            flags > 7) {
            en_error(ck->diags, arg_locs[0],
                     "argument 1 of '%s' must be mem_flags (mem_none, mem_device, "
                     "mem_threadgroup, mem_texture, combined with |)", name);
            return NULL;
        }
        ir_expr *a = ir_const_uint(ck->m, ck_t(ck, IR_T_U32), (uint64_t)flags, arg_locs[0]);
        effect(&k, NULL, &a, 1);
        return ir_expr_new(ck->m, IR_E_CONST, ck_t(ck, IR_T_VOID), loc, 0);
    }
    case SIG_FENCE:
        return fence_call(&k);
    case SIG_GROUP_RED: case SIG_GROUP_BIT: case SIG_GROUP_LANE: case SIG_GROUP_FILL:
    case SIG_GROUP_BALLOT: case SIG_GROUP_PRED: case SIG_GROUP_NONE_BOOL: case SIG_GROUP_MASK:
        return group_call(&k);
    case SIG_ATOMIC_LOAD: case SIG_ATOMIC_STORE: case SIG_ATOMIC_XCHG: case SIG_ATOMIC_CAS:
    case SIG_ATOMIC_ARITH: case SIG_ATOMIC_MINMAX: case SIG_ATOMIC_BITS:
        return atomic_call(&k);
    case SIG_MAT_FILL: case SIG_MAT_LOAD: case SIG_MAT_STORE: case SIG_MAT_MUL:
    case SIG_MAT_MULACC:
        return matrix_call(&k, targs, targ_count);
    default:
        return math_call(&k);
    }
}
