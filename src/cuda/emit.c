/* emit.c — kernel IR to readable CUDA C++ (what `enigma compile --emit cuda` shows).
 *
 * Needs: a verified module after inlining (only kernels, no IR_S_CALL; ir.h).
 * Guarantees: one self-contained file that NVRTC compiles with -default-device --std=c++17
 * and the CUDA include folder: the prelude (prelude.cuh: Metal's types, layout and built-ins
 * in `namespace metal`), then the module's structs (with static_asserts on their MSL layout),
 * program-scope constants, and one extern "C" __global__ function per kernel whose
 * parameters are listed in internal.h. The code keeps the MSL names of variables, types and
 * fields, and comments each statement with the MSL line it came from.
 *
 * How the Metal model maps (prelude.cuh holds the helpers named here):
 *   - a threadgroup is a block, launched 1-D (driver.c); en_locate() gives each thread its
 *     Metal position and makes the surplus threads of an edge threadgroup leave at once;
 *   - threadgroup memory is __shared__ (static variables) and one extern dynamic array that
 *     [[threadgroup(n)]] parameters are carved from at offsets passed by the launch;
 *   - threadgroup_barrier is __syncthreads (with __threadfence for mem_device);
 *     simdgroup_barrier is __syncwarp over the active lanes;
 *   - SIMD and quad functions are en_simd_* / en_quad_* helpers given __activemask() at the
 *     call, so divergent branches act on exactly their active lanes, as in Metal;
 *   - atomics are CUDA atomics of the object's width (relaxed);
 *   - loops are `while (c)` when the body opens with `if (!c) break;` (how for and while
 *     arrive), else `for (;;)`; the body gets its own scope and the latch follows it, behind
 *     an en_continue_N label when a `continue` must run the latch; `break`/`continue` that
 *     leave an inner loop for an outer one become gotos to labels after/inside it;
 *   - integer division and remainder by zero give 0 and shift counts wrap (prelude.cuh),
 *     so no input makes the generated code undefined;
 *   - simdgroup matrices run on tensor cores (prelude.cuh): a loop nest or run of multiplies
 *     is unrolled and its multiplies that share b fused two to an instruction
 *     (matrix_pairs.c); simdgroup_load/store say what align.c proved about their addresses;
 *     a module that calls thread_elements() numbers Metal's lanes as Apple's layout needs
 *     (EN_APPLE_LANES, en_cuda_apple_lanes). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define EN_MAX_LOOP_DEPTH 64

typedef struct loop_frame {
    const ir_stmt *loop;
    int label;            /* en_break_<label>, en_continue_<label> */
    bool break_goto_used, continue_goto_used;
} loop_frame;

typedef struct emitter {
    const ir_module *m;
    const ir_func *f;
    en_arena arena;       /* names and type spellings; freed after emitting */
    en_buf *out;
    int indent;
    const char **names;   /* per local variable id of the current function */
    int name_count;
    const char **global_names; /* per global id */
    int global_name_count;
    loop_frame loops[EN_MAX_LOOP_DEPTH];
    int loop_depth;
    const ir_stmt *unroll_next; /* the loop after the declaration being emitted goes out unrolled (unrolls_private_array) */
    int next_label;
    int last_line;
    en_buf *err;
    bool failed;
    bool apple_lanes;     /* EN_APPLE_LANES: blocks are whole warps (internal.h) */
    const en_mad_plan *plan; /* while emitting an unrolled nest of multiplies: */
    const en_mad *at;     /* the operation whose operands are emitted: its loop variables'
                           * values and the copies of the nest's matrix variables */
    bool b_layout;        /* matrix types are printed as mma.sync's B layout (en_matrix_b) */
    en_align align;       /* the kernel's alignment facts (align.c) */
    en_cuda_shared_layout shared;
    /* per local variable id: a pointer to vectors that may not be aligned as one (see
     * "vectors at unproven addresses" below) */
    bool *loose_vars;
    const char **struct_names; /* per struct of the module (name_structs) */
    int place_depth;      /* > 0 while a place is emitted as a place (assigned, address taken) */
    const en_wg_plan *wg; /* while emitting the warpgroup form of a kernel (wgmma.c), its plan */
    bool wg_swizzle;      /* ... with its staging swizzled (wg_swizzles) */
    bool wg_pipe;         /* ... its copy-then-multiply form pipelined (wgmma_pipe.c) */
    bool wg_merge;        /* the kernel has a quad's entry point (wgmma_merge.c) */
    bool wg_tile_move;    /* ... whose staging holds its four threadgroups' accumulator tiles (emit_wg_move) */
    bool wg_in_k_loop;    /* ... inside its K loop */
    bool wg_pipe_inside;  /* ... emitting the copy statements the pipeline runs: as written */
    const char *wg_copy_buffer; /* ... the buffer a copy or the nest uses, when not the kernel's */
    enum { WG_COPY_TESTED, WG_COPY_NOTED, WG_COPY_UNTESTED } wg_copy_form; /* a steady copy's chunks
                             (wgmma_pipe.c): tested each, noted (before the loop), or not tested */
    const ir_var *wg_copy_role; /* ... in a quad's loop for the threadgroups that fill this
                                   staging array and not the other: its copies only, ungated */
} emitter;

static void fail(emitter *e, en_loc loc, const char *what) {
    if (e->failed) return;
    e->failed = true;
    en_buf_printf(e->err, "internal error: the cuda backend cannot emit %s (at line %d)", what,
                  loc.line);
}

static void put(emitter *e, const char *s) { en_buf_puts(e->out, s); }
static void line_start(emitter *e) {
    for (int i = 0; i < e->indent; i++) en_buf_puts(e->out, "    ");
}

/* ---- names ------------------------------------------------------------------------------ */
/* C++ and CUDA words that MSL allows as names, and the prelude's own names */
static bool reserved_name(const char *s) {
    static const char *const words[] = {
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "metal", "asm", "new",
        "delete", "this", "class", "typename", "template", "namespace", "operator", "friend",
        "virtual", "explicit", "export", "mutable", "private", "protected", "public", "throw",
        "try", "catch", "typeid", "using", "register", "restrict", "alignas", "alignof",
        "decltype", "noexcept", "nullptr", "static_assert", "thread_local", "char16_t",
        "char32_t", "wchar_t", "and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq",
        "or_eq", "xor_eq", "not_eq", "memcpy", "uint", "ushort", "uchar", "ulong", "mlong",
        "half", "bfloat", "atomic_int", "atomic_uint", "atomic_float", "atomic_bool",
        "atomic_ulong", "min", "max", "abs", "main",
    };
    if (strncmp(s, "en_", 3) == 0 || strncmp(s, "__", 2) == 0) return true;
    for (size_t i = 0; i < EN_COUNT(words); i++)
        if (strcmp(s, words[i]) == 0) return true;
    return false;
}

/* an identifier made of `name` (MSL names can carry template arguments or ::) */
static char *identifier(en_arena *a, const char *name) {
    size_t n = strlen(name ? name : "");
    char *s = en_alloc(a, n + 2);
    size_t j = 0;
    if (n == 0 || isdigit((unsigned char)name[0])) s[j++] = '_';
    for (size_t i = 0; i < n; i++) s[j++] = isalnum((unsigned char)name[i]) ? name[i] : '_';
    s[j] = 0;
    return s;
}

const char *en_cuda_kernel_symbol(const ir_func *kernel) { return kernel->name; }

static const char *struct_name(emitter *e, const ir_type *t) {
    return e->struct_names[t->struct_index];
}

static const char *field_name(emitter *e, const char *name) {
    const char *s = identifier(&e->arena, name);
    return reserved_name(s) ? en_fmt(&e->arena, "%s_", s) : s;
}

/* ---- types ------------------------------------------------------------------------------ */
static const char *scalar_name(ir_type_kind k) {
    switch (k) {
    case IR_T_VOID: return "void";
    case IR_T_BOOL: return "bool";
    case IR_T_I8: return "signed char";
    case IR_T_U8: return "uchar";
    case IR_T_I16: return "short";
    case IR_T_U16: return "ushort";
    case IR_T_I32: return "int";
    case IR_T_U32: return "uint";
    case IR_T_I64: return "long long";
    case IR_T_U64: return "ulong";
    case IR_T_F16: return "half";
    case IR_T_BF16: return "bfloat";
    case IR_T_F32: return "float";
    default: return NULL;
    }
}

/* the stem of vector type names: char4, uchar4, long4 ... */
static const char *vector_stem(ir_type_kind k) {
    return k >= IR_T_BOOL && k <= IR_T_F32 ? ir_scalar_name(k) : NULL;
}

static const char *type_name(emitter *e, const ir_type *t) {
    if (!t) return "void";
    switch (t->kind) {
    case IR_T_VEC: {
        const char *stem = vector_stem(t->elem->kind);
        if (!stem) break;
        return en_fmt(&e->arena, "%s%s%u", t->packed ? "packed_" : "", stem, t->count);
    }
    case IR_T_ARRAY:
        return en_fmt(&e->arena, "en_array<%s, %u>", type_name(e, t->elem), t->count);
    case IR_T_STRUCT:
        return struct_name(e, t);
    case IR_T_PTR:
        /* threadgroup and device pointers are both generic pointers in CUDA */
        return en_fmt(&e->arena, "%s%s*",
                      (t->is_const || t->space == IR_SPACE_CONSTANT) ? "const " : "",
                      type_name(e, t->elem));
    case IR_T_ATOMIC:
        switch (t->elem->kind) {
        case IR_T_I32: return "atomic_int";
        case IR_T_U32: return "atomic_uint";
        case IR_T_F32: return "atomic_float";
        case IR_T_BOOL: return "atomic_bool";
        case IR_T_U64: return "atomic_ulong";
        default: break;
        }
        break;
    case IR_T_SIMD_MATRIX:
        if (e->b_layout) return en_fmt(&e->arena, "en_matrix_b<%s>", type_name(e, t->elem));
        switch (t->elem->kind) {
        case IR_T_F32: return "simdgroup_float8x8";
        case IR_T_F16: return "simdgroup_half8x8";
        case IR_T_BF16: return "simdgroup_bfloat8x8";
        default: break;
        }
        break;
    default: {
        const char *s = scalar_name(t->kind);
        if (s) return s;
    }
    }
    fail(e, (en_loc){-1, 0, 0}, "a value of this type");
    return "void";
}

/* the element type name of a matrix or scalar */
static const char *elem_name(emitter *e, const ir_type *t) {
    return type_name(e, t->kind == IR_T_SIMD_MATRIX || t->kind == IR_T_VEC ? t->elem : t);
}

static bool is_small_int(const ir_type *t) {
    return t->kind == IR_T_I8 || t->kind == IR_T_U8 || t->kind == IR_T_I16 || t->kind == IR_T_U16;
}
static bool is_lowp(const ir_type *t) { return t->kind == IR_T_F16 || t->kind == IR_T_BF16; }

/* ---- constants -------------------------------------------------------------------------- */
/* IEEE half and bfloat16 bits of a value that is exact in the type (ir.h: constants are
 * already rounded); rounding to nearest-even anyway, for safety */
static uint16_t half_bits(double v) {
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* overflows to infinity */
    if (ax < 0x38800000u) {                                   /* subnormal or zero */
        float af;
        memcpy(&af, &ax, 4);
        float scaled = af * 16777216.0f; /* 2^24: units of the smallest subnormal */
        uint32_t q = (uint32_t)scaled;
        float rem = scaled - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t mant = ax & 0x7fffffu, exp = (ax >> 23) - 127 + 15;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

static uint16_t bfloat_bits(double v) {
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)((x + rounding) >> 16);
}

static void emit_float_literal(emitter *e, double v) {
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if ((bits & 0x7f800000u) == 0x7f800000u) {
        /* infinities and NaNs have no literal; a bit cast of their bits is a constant
         * expression, so it may initialize __device__ constants (MLX's Limits<float>::max) */
        en_buf_printf(e->out, "__builtin_bit_cast(float, 0x%08xu)", bits);
        return;
    }
    char text[64];
    snprintf(text, sizeof text, "%.9g", (double)f);
    if (!strpbrk(text, ".eEn")) strcat(text, ".0");
    en_buf_printf(e->out, "%sf", text);
}

static void emit_const(emitter *e, const ir_expr *x) {
    const ir_type *t = x->type;
    switch (t->kind) {
    case IR_T_BOOL: put(e, x->c.u ? "true" : "false"); return;
    case IR_T_I8: en_buf_printf(e->out, "(signed char)%lld", (long long)x->c.i); return;
    case IR_T_I16: en_buf_printf(e->out, "(short)%lld", (long long)x->c.i); return;
    case IR_T_I32:
        if (x->c.i == INT32_MIN) put(e, "(-2147483647 - 1)");
        else en_buf_printf(e->out, x->c.i < 0 ? "(%lld)" : "%lld", (long long)x->c.i);
        return;
    case IR_T_I64:
        if (x->c.i == INT64_MIN) put(e, "(-9223372036854775807LL - 1)");
        else en_buf_printf(e->out, x->c.i < 0 ? "(%lldLL)" : "%lldLL", (long long)x->c.i);
        return;
    case IR_T_U8: en_buf_printf(e->out, "(uchar)%llu", (unsigned long long)x->c.u); return;
    case IR_T_U16: en_buf_printf(e->out, "(ushort)%llu", (unsigned long long)x->c.u); return;
    case IR_T_U32: en_buf_printf(e->out, "%lluu", (unsigned long long)(uint32_t)x->c.u); return;
    case IR_T_U64: en_buf_printf(e->out, "%lluull", (unsigned long long)x->c.u); return;
    case IR_T_F32: emit_float_literal(e, x->c.f); return;
    case IR_T_F16:
        /* raw bits: the constexpr constructor, so constants may initialise globals */
        en_buf_printf(e->out, "half(__half_raw{0x%04x}) /* %g */", half_bits(x->c.f), x->c.f);
        return;
    case IR_T_BF16:
        en_buf_printf(e->out, "bfloat(__nv_bfloat16_raw{0x%04x}) /* %g */", bfloat_bits(x->c.f),
                      x->c.f);
        return;
    case IR_T_PTR: put(e, "nullptr"); return;
    default: fail(e, x->loc, "a constant of this type"); return;
    }
}

/* ---- expressions ------------------------------------------------------------------------- */
static void emit_expr(emitter *e, const ir_expr *x);

static const char *var_name(emitter *e, const ir_var *v) {
    if (v->storage == IR_VAR_CONSTANT) {
        if (v->id >= 0 && v->id < e->global_name_count && e->global_names[v->id])
            return e->global_names[v->id];
    } else if (v->id >= 0 && v->id < e->name_count && e->names[v->id]) {
        return e->names[v->id];
    }
    return identifier(&e->arena, v->name);
}

/* copy n of a matrix variable declared inside an unrolled nest (matrix_pairs.c): `a_u0`,
 * `a_u1`, ..., with underscores added while the name is some variable's */
static const char *copy_name(emitter *e, const ir_var *v, int n) {
    const char *name = en_fmt(&e->arena, "%s_u%d", var_name(e, v), n);
    for (bool clash = true; clash;) {
        clash = false;
        for (int i = 0; i < e->name_count && !clash; i++) clash = e->names[i] && strcmp(e->names[i], name) == 0;
        for (int i = 0; i < e->global_name_count && !clash; i++)
            clash = e->global_names[i] && strcmp(e->global_names[i], name) == 0;
        if (clash) name = en_fmt(&e->arena, "%s_", name);
    }
    return name;
}

static const char lane_letters[] = "xyzw";

/* a base of [] or . : parenthesised unless it is a plain name */
/* ---- vectors at unproven addresses ------------------------------------------------------------
 * Metal lets code take a float4 at any float's address: ggml's mul_mm stores its partial tiles
 * through `(device float4 *) D` with D a float pointer into a row of 70 floats, and Apple's
 * GPUs (and the cpu backend) do the access. A CUDA vector access must be aligned as the
 * vector or it faults. A pointer to vectors made by casting a pointer to something less
 * aligned (float * to float4 *), pointer arithmetic on one, and a local variable assigned
 * one are "loose"; a whole-vector load or store through a loose pointer tests the address
 * at run time (en_vload_u / en_vstore_u, prelude) and goes element by element when it is
 * not aligned. Pointers that are vector pointers from the start (a `device float4 *` buffer)
 * keep plain accesses: Metal requires their bindings to be aligned. */
static bool aligned_vector(const ir_type *t) {
    return t->kind == IR_T_VEC && !t->packed && t->elem && t->align > t->elem->align;
}

/* a vector, or a struct or array holding one at some depth (`struct pair { float4 a, b; }`) */
static bool holds_aligned_vector(const ir_type *t) {
    if (!t) return false;
    if (aligned_vector(t)) return true;
    if (t->kind == IR_T_ARRAY) return holds_aligned_vector(t->elem);
    if (t->kind == IR_T_STRUCT)
        for (int i = 0; i < t->field_count; i++)
            if (holds_aligned_vector(t->fields[i].type)) return true;
    return false;
}

static bool vector_pointer(const ir_type *t) {
    return t && t->kind == IR_T_PTR && holds_aligned_vector(t->elem);
}

static bool loose_pointer(const emitter *e, const ir_expr *p) {
    if (!p || !vector_pointer(p->type)) return false;
    switch (p->kind) {
    case IR_E_PTRCAST: {
        const ir_type *from = p->args[0]->type;
        if (from->kind != IR_T_PTR || !from->elem) return true;
        if ((from->elem->align ? from->elem->align : 1) < p->type->elem->align) return true;
        return loose_pointer(e, p->args[0]);
    }
    case IR_E_PTR_OFFSET: return loose_pointer(e, p->args[0]);
    case IR_E_SELECT: return loose_pointer(e, p->args[1]) || loose_pointer(e, p->args[2]);
    case IR_E_VAR:
        return e->loose_vars && p->var->storage == IR_VAR_LOCAL && p->var->id >= 0 && p->var->id < e->name_count &&
               e->loose_vars[p->var->id];
    default: return false;
    }
}

typedef struct loose_marking {
    emitter *e;
    bool changed; /* a variable was marked that was not before */
} loose_marking;

/* marks the local variable one statement assigns, when it is assigned a loose pointer */
static void mark_loose_at(const ir_stmt *s, void *marking_ctx) {
    loose_marking *lm = marking_ctx;
    emitter *e = lm->e;
    const ir_var *v = NULL;
    const ir_expr *value = NULL;
    if (s->kind == IR_S_DECL) {
        v = s->var;
        value = s->value;
    } else if (s->kind == IR_S_ASSIGN && s->place->kind == IR_E_VAR) {
        v = s->place->var;
        value = s->value;
    }
    if (v && value && v->storage == IR_VAR_LOCAL && v->id >= 0 && v->id < e->name_count && !e->loose_vars[v->id] &&
        loose_pointer(e, value)) {
        e->loose_vars[v->id] = true;
        lm->changed = true;
    }
}

/* marks the local variables that are assigned a loose pointer; true when it marked any new */
static bool mark_loose(emitter *e, const ir_stmt *s) {
    loose_marking lm = {e, false};
    ir_stmt_each(s, mark_loose_at, &lm);
    return lm.changed;
}

/* a whole vector read or written through a loose pointer */
/* a whole vector in memory reached through a loose pointer: `*q`, `q[i]`, or a vector inside
 * the struct or array there (`q[i].b`, `q->rows[2]`) */
static bool loose_vector_place(const emitter *e, const ir_expr *x) {
    if (!x || x->type->kind != IR_T_VEC) return false;
    const ir_expr *base = x;
    while (base->kind == IR_E_FIELD || (base->kind == IR_E_INDEX && base->args[0]->type->kind == IR_T_ARRAY))
        base = base->args[0];
    if (base->kind == IR_E_DEREF) return loose_pointer(e, base->args[0]);
    if (base->kind == IR_E_INDEX) return base->args[0]->type->kind == IR_T_PTR && loose_pointer(e, base->args[0]);
    return false;
}

static void emit_base(emitter *e, const ir_expr *x) {
    if (x->kind == IR_E_VAR) { emit_expr(e, x); return; }
    put(e, "(");
    emit_expr(e, x);
    put(e, ")");
}

static void emit_args(emitter *e, ir_expr *const *args, int n) {
    for (int i = 0; i < n; i++) {
        if (i) put(e, ", ");
        emit_expr(e, args[i]);
    }
}

static void emit_binary(emitter *e, const ir_expr *x) {
    const ir_type *t = x->args[0]->type;
    bool vec = t->kind == IR_T_VEC;
    const char *helper = NULL;
    switch (x->op) {
    case IR_OP_DIV: if (!ir_is_float(ir_scalar_of(t)) || vec) helper = "en_div"; break;
    case IR_OP_REM: helper = "en_rem"; break;
    case IR_OP_SHL: helper = "en_shl"; break;
    case IR_OP_SHR: helper = "en_shr"; break;
    default: break;
    }
    /* half and bfloat round after each operation, never contracted into an fma (prelude) */
    if (!vec && is_lowp(t)) {
        if (x->op == IR_OP_ADD) helper = "en_add";
        else if (x->op == IR_OP_SUB) helper = "en_sub";
        else if (x->op == IR_OP_MUL) helper = "en_mul";
    }
    if (helper) {
        en_buf_printf(e->out, "%s(", helper);
        emit_args(e, x->args, 2);
        put(e, ")");
        return;
    }
    /* arithmetic on char and short wraps in the type, as MSL's conversion back does */
    bool wrap = !vec && is_small_int(x->type);
    if (wrap) en_buf_printf(e->out, "(%s)", type_name(e, x->type));
    put(e, "(");
    emit_expr(e, x->args[0]);
    en_buf_printf(e->out, " %s ", ir_op_name(x->op));
    emit_expr(e, x->args[1]);
    put(e, ")");
}

static void emit_unary(emitter *e, const ir_expr *x) {
    bool wrap = x->type->kind != IR_T_VEC && is_small_int(x->type) && x->op != IR_OP_NOT;
    if (wrap) en_buf_printf(e->out, "(%s)", type_name(e, x->type));
    put(e, "(");
    put(e, x->op == IR_OP_NEG ? "-" : x->op == IR_OP_NOT ? "!" : "~");
    emit_expr(e, x->args[0]);
    put(e, ")");
}

static void emit_convert(emitter *e, const ir_expr *x) {
    const ir_type *to = x->type, *from = x->args[0]->type;
    if (to->kind == IR_T_VEC || from->kind == IR_T_VEC || is_lowp(to) || is_lowp(from)) {
        en_buf_printf(e->out, "en_as<%s>(", type_name(e, to));
        emit_expr(e, x->args[0]);
        put(e, ")");
        return;
    }
    en_buf_printf(e->out, "(%s)(", type_name(e, to));
    emit_expr(e, x->args[0]);
    put(e, ")");
}

/* Pure built-ins. A scalar argument of a lane-wise built-in whose other arguments are
 * vectors is spread over the vector (clamp(float4, float, float), mix(v, w, t), step). */
typedef struct pure_map {
    const char *helper;
    bool lanewise;        /* scalar arguments splat to the vector argument's type */
} pure_map;

static pure_map pure_helper(ir_intrinsic i) {
    switch (i) {
#define L(I, h) case IR_I_##I: return (pure_map){h, true};
#define N(I, h) case IR_I_##I: return (pure_map){h, false};
    L(ABS, "en_abs") L(FABS, "en_fabs") L(MIN, "en_min") L(MAX, "en_max") L(FMIN, "en_fmin")
    L(FMAX, "en_fmax") L(CLAMP, "en_clamp") L(MIX, "en_mix") L(STEP, "en_step")
    L(SMOOTHSTEP, "en_smoothstep") L(SIGN, "en_sign") L(SATURATE, "en_saturate")
    L(FLOOR, "en_floor") L(CEIL, "en_ceil") L(ROUND, "en_round") L(RINT, "en_rint")
    L(TRUNC, "en_trunc") L(FRACT, "en_fract") L(FMOD, "en_fmod") L(FDIM, "en_fdim")
    L(EXP, "en_exp") L(EXP2, "en_exp2") L(EXP10, "en_exp10") L(LOG, "en_log")
    L(LOG2, "en_log2") L(LOG10, "en_log10") L(POW, "en_pow") L(POWR, "en_powr")
    L(SQRT, "en_sqrt") L(RSQRT, "en_rsqrt") L(SIN, "en_sin") L(COS, "en_cos") L(TAN, "en_tan")
    L(ASIN, "en_asin") L(ACOS, "en_acos") L(ATAN, "en_atan") L(ATAN2, "en_atan2")
    L(SINH, "en_sinh") L(COSH, "en_cosh") L(TANH, "en_tanh") L(ASINH, "en_asinh")
    L(ACOSH, "en_acosh") L(ATANH, "en_atanh") L(SINPI, "en_sinpi") L(COSPI, "en_cospi")
    L(TANPI, "en_tanpi") L(FMA, "en_fma") L(MAD, "en_mad") L(COPYSIGN, "en_copysign")
    L(ISNAN, "en_isnan") L(ISINF, "en_isinf") L(ISFINITE, "en_isfinite")
    L(SIGNBIT, "en_signbit") L(FREXP_MANTISSA, "en_frexp")
    L(FREXP_EXPONENT, "en_frexp_exponent") L(MODF_FRACTION, "en_modf")
    L(POPCOUNT, "en_popcount") L(CLZ, "en_clz") L(CTZ, "en_ctz") L(MULHI, "en_mulhi")
    L(MUL24, "en_mul24") L(MAD24, "en_mad24") L(ROTATE, "en_rotate") L(ADDSAT, "en_addsat")
    L(SUBSAT, "en_subsat") L(ABSDIFF, "en_absdiff") L(HADD, "en_hadd") L(RHADD, "en_rhadd")
    L(MAX3, "en_max3") L(MIN3, "en_min3") L(MEDIAN3, "en_median3")
    L(REVERSE_BITS, "en_reverse_bits")
    N(DOT, "en_dot") N(LENGTH, "en_length") N(DISTANCE, "en_distance")
    N(NORMALIZE, "en_normalize") N(CROSS, "en_cross") N(ALL, "en_all") N(ANY, "en_any")
    N(LDEXP, "en_ldexp") N(EXTRACT_BITS, "en_extract_bits") N(INSERT_BITS, "en_insert_bits")
    N(SELECT, NULL)
#undef L
#undef N
    default: return (pure_map){NULL, false};
    }
}

static void emit_splat_to(emitter *e, const ir_type *vec, const ir_expr *scalar) {
    en_buf_printf(e->out, "en_splat<%s>(", type_name(e, vec));
    emit_expr(e, scalar);
    put(e, ")");
}

static void emit_call(emitter *e, const ir_expr *x) {
    if (x->intrinsic == IR_I_SELECT && x->arg_count == 3) {
        /* select(a, b, c) is c ? b : a, lane by lane */
        const ir_expr *a = x->args[0], *b = x->args[1], *c = x->args[2];
        if (c->type->kind == IR_T_VEC) {
            put(e, "en_select_lanes(");
            emit_expr(e, c);
            put(e, ", ");
            if (b->type->kind != IR_T_VEC) emit_splat_to(e, x->type, b); else emit_expr(e, b);
            put(e, ", ");
            if (a->type->kind != IR_T_VEC) emit_splat_to(e, x->type, a); else emit_expr(e, a);
            put(e, ")");
            return;
        }
        put(e, "(");
        emit_expr(e, c);
        put(e, " ? ");
        emit_expr(e, b);
        put(e, " : ");
        emit_expr(e, a);
        put(e, ")");
        return;
    }
    pure_map pm = pure_helper(x->intrinsic);
    if (!pm.helper) {
        fail(e, x->loc, en_fmt(&e->arena, "the built-in '%s'", ir_intrinsic_name(x->intrinsic)));
        return;
    }
    const ir_type *vec = NULL;
    for (int i = 0; i < x->arg_count; i++)
        if (x->args[i]->type->kind == IR_T_VEC) { vec = x->args[i]->type; break; }
    /* absdiff answers in the unsigned type; the IR may want it in another */
    bool convert = x->intrinsic == IR_I_ABSDIFF;
    if (convert) en_buf_printf(e->out, "en_as<%s>(", type_name(e, x->type));
    en_buf_printf(e->out, "%s(", pm.helper);
    for (int i = 0; i < x->arg_count; i++) {
        const ir_expr *a = x->args[i];
        if (i) put(e, ", ");
        if (pm.lanewise && vec && a->type->kind != IR_T_VEC) {
            emit_splat_to(e, vec, a);
        } else if (x->intrinsic == IR_I_LDEXP && i == 1 && vec && a->type->kind != IR_T_VEC) {
            en_buf_printf(e->out, "en_splat<int%u>(", vec->count);
            emit_expr(e, a);
            put(e, ")");
        } else {
            emit_expr(e, a);
        }
    }
    put(e, ")");
    if (convert) put(e, ")");
}

static void emit_expr(emitter *e, const ir_expr *x) {
    if (e->place_depth == 0 && loose_vector_place(e, x)) {
        /* a whole vector read through a pointer of unproven alignment */
        put(e, "en_vload_u(&");
        e->place_depth++;
        emit_expr(e, x);
        e->place_depth--;
        put(e, ")");
        return;
    }
    if (!x) { fail(e, (en_loc){-1, 0, 0}, "a missing expression"); return; }
    switch (x->kind) {
    case IR_E_CONST: emit_const(e, x); return;
    case IR_E_VAR:
        if (e->at) {
            for (int i = 0; i < e->plan->var_count; i++)
                if (e->plan->vars[i] == x->var) {
                    en_buf_printf(e->out, "((%s)%lld)", type_name(e, x->type), (long long)e->at->values[i]);
                    return;
                }
            for (int i = 0; i < e->plan->decl_count; i++)
                if (e->plan->decls[i] == x->var) {
                    put(e, copy_name(e, x->var, e->at->copies[i]));
                    return;
                }
        }
        put(e, var_name(e, x->var));
        return;
    case IR_E_INDEX: {
        const ir_expr *base = x->args[0], *index = x->args[1];
        if (base->type->kind == IR_T_VEC && index->kind == IR_E_CONST && index->c.u < 4) {
            emit_base(e, base);
            en_buf_printf(e->out, ".%c", lane_letters[index->c.u]);
            return;
        }
        emit_base(e, base);
        put(e, "[");
        emit_expr(e, index);
        put(e, "]");
        return;
    }
    case IR_E_FIELD: {
        const ir_type *st = x->args[0]->type;
        if (st->kind != IR_T_STRUCT || x->field < 0 || x->field >= st->field_count) {
            fail(e, x->loc, "a field of a non-struct");
            return;
        }
        emit_base(e, x->args[0]);
        en_buf_printf(e->out, ".%s", field_name(e, st->fields[x->field].name));
        return;
    }
    case IR_E_SWIZZLE:
        if (x->swizzle_len == 1) {
            emit_base(e, x->args[0]);
            en_buf_printf(e->out, ".%c", lane_letters[x->swizzle[0] & 3]);
            return;
        }
        put(e, "en_swizzle<");
        for (int i = 0; i < x->swizzle_len; i++) en_buf_printf(e->out, "%s%d", i ? ", " : "", x->swizzle[i]);
        put(e, ">(");
        emit_expr(e, x->args[0]);
        put(e, ")");
        return;
    case IR_E_DEREF:
        put(e, "(*");
        emit_expr(e, x->args[0]);
        put(e, ")");
        return;
    case IR_E_ADDR:
        put(e, "(&");
        e->place_depth++;
        emit_expr(e, x->args[0]);
        e->place_depth--;
        put(e, ")");
        return;
    case IR_E_UNARY: emit_unary(e, x); return;
    case IR_E_BINARY: emit_binary(e, x); return;
    case IR_E_SELECT:
        if (x->args[0]->type->kind == IR_T_VEC) {
            put(e, "en_select_lanes(");
            emit_args(e, x->args, 3);
            put(e, ")");
            return;
        }
        put(e, "(");
        emit_expr(e, x->args[0]);
        put(e, " ? ");
        emit_expr(e, x->args[1]);
        put(e, " : ");
        emit_expr(e, x->args[2]);
        put(e, ")");
        return;
    case IR_E_CONVERT: emit_convert(e, x); return;
    case IR_E_BITCAST:
        en_buf_printf(e->out, "en_bitcast<%s>(", type_name(e, x->type));
        emit_expr(e, x->args[0]);
        put(e, ")");
        return;
    case IR_E_PTRCAST:
        en_buf_printf(e->out, "((%s)(", type_name(e, x->type));
        emit_expr(e, x->args[0]);
        put(e, "))");
        return;
    case IR_E_PTR_OFFSET:
        put(e, "(");
        emit_expr(e, x->args[0]);
        put(e, " + ");
        emit_expr(e, x->args[1]);
        put(e, ")");
        return;
    case IR_E_SPLAT: emit_splat_to(e, x->type, x->args[0]); return;
    case IR_E_VECTOR:
        en_buf_printf(e->out, "%s{", type_name(e, x->type));
        emit_args(e, x->args, x->arg_count);
        put(e, "}");
        return;
    case IR_E_AGGREGATE:
        if (x->type->kind == IR_T_ARRAY) {
            en_buf_printf(e->out, "%s{{", type_name(e, x->type));
            emit_args(e, x->args, x->arg_count);
            put(e, "}}");
        } else {
            en_buf_printf(e->out, "%s{", type_name(e, x->type));
            emit_args(e, x->args, x->arg_count);
            put(e, "}");
        }
        return;
    case IR_E_CALL: emit_call(e, x); return;
    }
    fail(e, x->loc, "an expression of this kind");
}

/* ---- statements --------------------------------------------------------------------------- */
static void emit_stmt(emitter *e, const ir_stmt *s);

/* "// file.metal:12: acc += v;" above the first statement of each MSL line */
static void emit_source_comment(emitter *e, en_loc loc) {
    if (loc.file < 0 || loc.line <= 0 || loc.line == e->last_line || !e->m->sources) return;
    if (loc.file >= e->m->sources->files.count) return;
    e->last_line = loc.line;
    int len = 0;
    const char *text = en_source_line(e->m->sources, loc.file, loc.line, &len);
    while (len > 0 && isspace((unsigned char)*text)) text++, len--;
    while (len > 0 && isspace((unsigned char)text[len - 1])) len--;
    if (len > 90) len = 90;
    line_start(e);
    en_buf_printf(e->out, "// %d: ", loc.line);
    for (int i = 0; i < len; i++) /* a backslash ending a // comment would continue it */
        en_buf_putc(e->out, text[i] == '\\' ? '/' : text[i]);
    put(e, "\n");
}

static void emit_stmts(emitter *e, ir_stmt *const *stmts, int count);

static void emit_block_body(emitter *e, const ir_stmt *s) {
    if (!s) return;
    if (s->kind == IR_S_BLOCK) {
        emit_stmts(e, s->stmts, s->stmt_count);
    } else {
        emit_stmt(e, s);
    }
}

static void emit_braced(emitter *e, const ir_stmt *s) {
    put(e, "{\n");
    e->indent++;
    emit_block_body(e, s);
    e->indent--;
    line_start(e);
    put(e, "}");
}

static loop_frame *find_loop(emitter *e, const ir_stmt *target, bool *innermost) {
    for (int i = e->loop_depth - 1; i >= 0; i--)
        if (e->loops[i].loop == target) {
            *innermost = i == e->loop_depth - 1;
            return &e->loops[i];
        }
    return NULL;
}

/* the loop's leading `if (c) break;` (no else), if it has one */
static const ir_stmt *loop_exit_test(const ir_stmt *loop) {
    const ir_stmt *b = loop->body;
    if (!b || b->kind != IR_S_BLOCK || b->stmt_count == 0) return NULL;
    const ir_stmt *first = b->stmts[0];
    if (first->kind != IR_S_IF || first->else_s || !first->then_s) return NULL;
    const ir_stmt *t = first->then_s;
    if (t->kind == IR_S_BLOCK) {
        if (t->stmt_count != 1) return NULL;
        t = t->stmts[0];
    }
    return t->kind == IR_S_BREAK && t->target == loop ? first : NULL;
}

/* ---- loops that keep a thread's array in registers once unrolled ------------------------------ */
/* A counted loop (`v = c0` declared just before it, `if (!(v < c1)) break;` opening its body,
 * `v = v + c2` its latch, all constants) of at most EN_UNROLL_TRIPS trips, whose body indexes
 * one of the thread's arrays with v, goes out with `#pragma unroll`: every index is then a
 * constant and nvcc keeps the array in registers. nvcc unrolls such loops by its own measure
 * of their bodies, which the GEMM's loops over its 4x4 accumulator matrices missed once each
 * C store had grown two branches (`for (short i = 0; i < 4; i++) ... simdgroup_store(acc[i][j],
 * ...)`): the matrices went to local memory, and a quad's prologue and epilogue waited on the
 * local-memory queue (bench/RESULTS.md, run 19). */
#define EN_UNROLL_TRIPS 16

typedef struct counted_loop {
    const ir_var *v;
    int64_t value;
} counted_loop;

static bool counter_value(const void *ctx, const ir_var *v, int64_t *out) {
    const counted_loop *c = ctx;
    if (v != c->v) return false;
    *out = c->value;
    return true;
}

static bool is_counter(const ir_expr *x, const void *ctx) {
    return x->kind == IR_E_VAR && x->var == ((const counted_loop *)ctx)->v;
}

static bool assigns_counter(const ir_stmt *s, const void *ctx) {
    return s->kind == IR_S_ASSIGN && is_counter(s->place, ctx);
}

static bool indexes_private_array(const ir_expr *x, const void *ctx) {
    const counted_loop *c = ctx;
    if (x->kind != IR_E_INDEX || !ir_expr_any(x->args[1], is_counter, c)) return false;
    const ir_expr *base = x->args[0];
    while (base->kind == IR_E_INDEX || base->kind == IR_E_FIELD) base = base->args[0];
    return base->kind == IR_E_VAR && base->var->storage == IR_VAR_LOCAL && base->var->type->kind == IR_T_ARRAY;
}

static bool unrolls_private_array(const ir_stmt *decl, const ir_stmt *loop) {
    if (decl->kind != IR_S_DECL || !decl->value || loop->kind != IR_S_LOOP || loop->unroll) return false;
    const ir_var *v = decl->var;
    const ir_stmt *test = loop_exit_test(loop), *latch = loop->latch;
    if (latch && latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    if (!ir_is_int_like(v->type) || v->address_taken || !test || !latch || latch->kind != IR_S_ASSIGN ||
        latch->place->kind != IR_E_VAR || latch->place->var != v)
        return false;
    counted_loop c = {.v = v};
    int64_t x;
    if (!ir_eval_int(decl->value, counter_value, &c, &x)) return false;
    c.value = ir_int_wrap(x, v->type);
    for (int trips = 0;; trips++) { /* the body must not assign v: only the latch steps it */
        int64_t leave;
        if (trips > EN_UNROLL_TRIPS || !ir_eval_int(test->cond, counter_value, &c, &leave)) return false;
        if (leave) break;
        if (!ir_eval_int(latch->value, counter_value, &c, &x)) return false;
        c.value = ir_int_wrap(x, v->type);
    }
    return !ir_stmt_any_in(loop->body, assigns_counter, &c) && ir_stmt_any_expr(loop->body, indexes_private_array, &c);
}

static void emit_loop(emitter *e, const ir_stmt *s) {
    if (e->loop_depth == EN_MAX_LOOP_DEPTH) { fail(e, s->loc, "loops nested this deep"); return; }
    loop_frame *fr = &e->loops[e->loop_depth++];
    *fr = (loop_frame){.loop = s, .label = e->next_label++};
    /* `if (!c) break;` opening the body (how for and while arrive) reads as while (c) */
    const ir_stmt *body = s->body;
    const ir_stmt *exit_test = loop_exit_test(s);
    if (exit_test) emit_source_comment(e, exit_test->loc);
    if (s->unroll) {
        line_start(e);
        if (s->unroll > 0) en_buf_printf(e->out, "#pragma unroll %d\n", s->unroll);
        else put(e, "#pragma unroll\n");
    } else if (s == e->unroll_next) {
        line_start(e);
        put(e, "#pragma unroll // a few trips indexing the thread's array: kept in registers\n");
    }
    line_start(e);
    if (exit_test) {
        put(e, "while (");
        const ir_expr *c = exit_test->cond;
        if (c->kind == IR_E_UNARY && c->op == IR_OP_NOT) emit_expr(e, c->args[0]);
        else { put(e, "!"); emit_base(e, c); }
        put(e, ") {\n");
    } else {
        put(e, "for (;;) {\n");
    }
    e->indent++;
    /* the body in its own scope, so that a goto to the continue label leaves its
     * declarations rather than jumping over them */
    line_start(e);
    put(e, "{\n");
    e->indent++;
    if (exit_test) emit_stmts(e, body->stmts + 1, body->stmt_count - 1);
    else emit_stmts(e, body->stmts, body->stmt_count);
    e->indent--;
    line_start(e);
    put(e, "}\n");
    bool has_latch = s->latch && !(s->latch->kind == IR_S_BLOCK && s->latch->stmt_count == 0);
    if (fr->continue_goto_used) {
        line_start(e);
        en_buf_printf(e->out, "en_continue_%d:;\n", fr->label);
    }
    if (has_latch) emit_block_body(e, s->latch);
    e->indent--;
    line_start(e);
    put(e, "}\n");
    if (fr->break_goto_used) {
        line_start(e);
        en_buf_printf(e->out, "en_break_%d:;\n", fr->label);
    }
    e->loop_depth--;
}

/* the atomic built-ins by name */
static const char *atomic_helper(ir_intrinsic i) {
    switch (i) {
    case IR_I_ATOMIC_LOAD: return "en_atomic_load";
    case IR_I_ATOMIC_STORE: return "en_atomic_store";
    case IR_I_ATOMIC_EXCHANGE: return "en_atomic_exchange";
    case IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK: return "en_atomic_compare_exchange";
    case IR_I_ATOMIC_FETCH_ADD: return "en_atomic_fetch_add";
    case IR_I_ATOMIC_FETCH_SUB: return "en_atomic_fetch_sub";
    case IR_I_ATOMIC_FETCH_MIN: return "en_atomic_fetch_min";
    case IR_I_ATOMIC_FETCH_MAX: return "en_atomic_fetch_max";
    case IR_I_ATOMIC_FETCH_AND: return "en_atomic_fetch_and";
    case IR_I_ATOMIC_FETCH_OR: return "en_atomic_fetch_or";
    case IR_I_ATOMIC_FETCH_XOR: return "en_atomic_fetch_xor";
    default: return NULL;
    }
}

static int atomic_arity(ir_intrinsic i) {
    switch (i) {
    case IR_I_ATOMIC_LOAD: return 1;
    case IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK: return 3;
    default: return 2;
    }
}

/* what align.c proves about a simdgroup_load/store's addresses (prelude.cuh, EN_ALIGNED_*):
 * 0 nothing (checked at run time), 1 each lane's pair is aligned as a vec<T, 2>, 2 also
 * the rows start on 16 bytes of threadgroup memory (ldmatrix) */
static int matrix_access_alignment(emitter *e, const ir_stmt *s, int first) {
    const ir_expr *ptr = s->args[first];
    if (ptr->type->kind != IR_T_PTR) return 0;
    uint32_t size = ptr->type->elem->size;
    uint32_t at = en_cuda_align_of_ptr(&e->align, ptr);
    uint32_t row = s->arg_count > first + 1 ? en_cuda_align_of_int(&e->align, s->args[first + 1]) : 16; /* 8 */
    uint32_t x = 16; /* origin.x */
    if (s->arg_count > first + 2) {
        const ir_expr *o = s->args[first + 2];
        if (o->kind == IR_E_SPLAT || o->kind == IR_E_VECTOR) x = en_cuda_align_of_int(&e->align, o->args[0]);
        else x = 1;
    }
    uint32_t pair = 2 * size;
    if (at < pair || row < 2 || x < 2) return 0;
    bool rows16 = at >= 16 && (uint64_t)row * size >= 16 && (uint64_t)x * size >= 16;
    return rows16 && ptr->type->space == IR_SPACE_THREADGROUP ? 2 : 1;
}

/* a simdgroup_load/store's (pointer, elements per row, origin, transpose) from args[first] */
static void emit_matrix_access_args(emitter *e, const ir_stmt *s, int first) {
    emit_expr(e, s->args[first]);
    put(e, ", ");
    if (s->arg_count > first + 1) emit_expr(e, s->args[first + 1]); else put(e, "8");
    put(e, ", ");
    if (s->arg_count > first + 2) emit_expr(e, s->args[first + 2]); else put(e, "ulong2{0, 0}");
    put(e, ", ");
    if (s->arg_count > first + 3) emit_expr(e, s->args[first + 3]); else put(e, "false");
}

/* the call that loads a simdgroup_load's matrix: in Metal's layout, or in mma.sync's B layout */
static void emit_matrix_load(emitter *e, const ir_stmt *s, bool b_layout) {
    en_buf_printf(e->out, "%s<%s, %d>(", b_layout ? "en_matrix_load_b" : "en_matrix_load", elem_name(e, s->result->type),
                  matrix_access_alignment(e, s, 0));
    emit_matrix_access_args(e, s, 0);
    put(e, ")");
}

static void emit_result_prefix(emitter *e, const ir_stmt *s) {
    line_start(e);
    if (s->result) en_buf_printf(e->out, "%s = ", var_name(e, s->result));
}

static const char *expr_text(emitter *e, const ir_expr *x);

static void emit_intrinsic(emitter *e, const ir_stmt *s) {
    ir_intrinsic_class cls = ir_intrinsic_class_of(s->intrinsic);
    const char *name = ir_intrinsic_name(s->intrinsic);
    switch (cls) {
    case IR_IC_BARRIER: {
        uint64_t flags = s->arg_count > 0 && s->args[0]->kind == IR_E_CONST ? s->args[0]->c.u
                                                                              : IR_MEM_DEVICE;
        line_start(e);
        /* the MMAs done before anyone may store into their buffers; chunk stores -> wgmma */
        if (e->wg && s->intrinsic == IR_I_BARRIER_THREADGROUP) {
            /* the asynchronous copies landed (before the proxy fence: they are this thread's
             * stores that the MMAs will read) */
            if (e->wg_merge && e->wg_in_k_loop) {
                /* every en_steps steps: the slices of the next en_steps steps landed, the MMAs
                 * of the steps before this one done, then the barrier */
                en_buf_printf(e->out, "if (en_steps == 1u || (%s - en_k_first) / (%s) %% en_steps == en_steps - 1u) { ",
                              var_name(e, e->wg->k_var), expr_text(e, e->wg->k_step));
                put(e, "en_wg_copy_wait_group<en_ahead - en_steps>(); en_wg_wait_group<en_mma_depth>(en_wg_d); en_wg_proxy_fence(); ");
                if (e->wg_copy_role) /* the quad's warps meet here from different loops (emit_wg_copy_role) */
                    put(e, flags & IR_MEM_DEVICE ? "__threadfence(); EN_BARRIER_DIVERGENT(); }\n" : "EN_BARRIER_DIVERGENT(); }\n");
                else
                    put(e, flags & IR_MEM_DEVICE ? "EN_BARRIER_DEVICE(); }\n" : "EN_BARRIER(); }\n");
                return;
            }
            if (e->wg->copy_count || e->wg_pipe) put(e, "en_wg_copy_wait(); ");
            put(e, "en_wg_wait(en_wg_d); en_wg_proxy_fence(); ");
        }
        if (s->intrinsic == IR_I_BARRIER_THREADGROUP)
            put(e, flags & IR_MEM_DEVICE ? "EN_BARRIER_DEVICE();\n" : "EN_BARRIER();\n");
        else
            put(e, flags & IR_MEM_DEVICE ? "__threadfence(); __syncwarp(__activemask());\n"
                                         : "__syncwarp(__activemask());\n");
        return;
    }
    case IR_IC_FENCE: {
        /* CUDA's fences are sequentially consistent at their scope (fence.sc.cta/gpu/sys), so
         * every order but relaxed is the same instruction; the block is the narrowest scope
         * with a fence, and a thread-scope fence only keeps the compiler from moving accesses
         * across it (the thread's own accesses are in program order) */
        uint64_t order = s->args[1]->c.u, scope = s->args[2]->c.u;
        line_start(e);
        if (order == IR_ORDER_RELAXED)
            put(e, "/* atomic_thread_fence, relaxed: no effect */\n");
        else if (scope == IR_SCOPE_THREAD)
            put(e, "asm volatile(\"\" ::: \"memory\"); /* atomic_thread_fence, thread scope */\n");
        else if (scope == IR_SCOPE_SYSTEM)
            put(e, "__threadfence_system();\n");
        else if (scope == IR_SCOPE_DEVICE)
            put(e, "__threadfence();\n");
        else
            put(e, "__threadfence_block();\n");
        return;
    }
    case IR_IC_SIMD:
    case IR_IC_QUAD:
        /* the active lanes are those executing this call together: __activemask() here */
        emit_result_prefix(e, s);
        en_buf_printf(e->out, "en_%s(__activemask()", name);
        for (int i = 0; i < s->arg_count; i++) {
            put(e, ", ");
            emit_expr(e, s->args[i]);
        }
        put(e, ");\n");
        return;
    case IR_IC_ATOMIC: {
        const char *h = atomic_helper(s->intrinsic);
        int n = atomic_arity(s->intrinsic);
        if (!h || s->arg_count < n) { fail(e, s->loc, name); return; }
        emit_result_prefix(e, s);
        en_buf_printf(e->out, "%s(", h);
        emit_args(e, s->args, n); /* memory orders, if present, are all relaxed */
        put(e, ");\n");
        return;
    }
    case IR_IC_MATRIX: {
        switch (s->intrinsic) {
        case IR_I_MATRIX_FILL:
            if (!s->result || s->arg_count < 1) break;
            emit_result_prefix(e, s);
            en_buf_printf(e->out, "en_matrix_fill<%s>(", elem_name(e, s->result->type));
            emit_expr(e, s->args[0]);
            put(e, ");\n");
            return;
        case IR_I_MATRIX_LOAD:
        case IR_I_MATRIX_STORE: {
            bool load = s->intrinsic == IR_I_MATRIX_LOAD;
            int first = load ? 0 : 1; /* store: (matrix, ptr, ...), load: (ptr, ...) */
            if (s->arg_count < first + 1 || (load && !s->result)) break;
            if (load) {
                emit_result_prefix(e, s);
                emit_matrix_load(e, s, false);
                put(e, ";\n");
                return;
            }
            line_start(e);
            en_buf_printf(e->out, "en_matrix_store<%d>(", matrix_access_alignment(e, s, first));
            emit_expr(e, s->args[0]);
            put(e, ", ");
            emit_matrix_access_args(e, s, first);
            put(e, ");\n");
            return;
        }
        case IR_I_MATRIX_MULTIPLY:
        case IR_I_MATRIX_MULTIPLY_ACCUMULATE: {
            int n = s->intrinsic == IR_I_MATRIX_MULTIPLY ? 2 : 3;
            if (s->arg_count < n || !s->result) break;
            emit_result_prefix(e, s);
            en_buf_printf(e->out, "%s<%s>(", n == 2 ? "en_matrix_multiply" : "en_matrix_multiply_accumulate",
                          elem_name(e, s->result->type));
            emit_args(e, s->args, n);
            put(e, ");\n");
            return;
        }
        default: break;
        }
        fail(e, s->loc, name);
        return;
    }
    case IR_IC_PURE:
        break;
    }
    fail(e, s->loc, name);
}

static void emit_wg_store(emitter *e, const ir_stmt *s, const en_wg_pointer *to);
static void emit_wg_copy(emitter *e, const en_wg_copy *copy);

static void emit_assign(emitter *e, const ir_stmt *s) {
    const ir_expr *p = s->place;
    const en_wg_copy *copy = e->wg ? en_cuda_wgmma_copy_load(e->wg, s) : NULL;
    if (copy) {
        emit_wg_copy(e, copy);
        return;
    }
    if (e->wg && en_cuda_wgmma_copy_store(e->wg, s)) {
        line_start(e);
        put(e, "// wgmma: copied asynchronously at its load\n");
        return;
    }
    const en_wg_pointer *chunk = e->wg ? en_cuda_wgmma_store(e->wg, s) : NULL;
    if (chunk) {
        emit_wg_store(e, s, chunk);
        return;
    }
    if (p->kind == IR_E_SWIZZLE && p->swizzle_len > 1) {
        /* v.zx = w: lane by lane from a copy of w */
        line_start(e);
        en_buf_printf(e->out, "{ const %s en_value = ", type_name(e, s->value->type));
        emit_expr(e, s->value);
        put(e, ";");
        for (int i = 0; i < p->swizzle_len; i++) {
            put(e, " (");
            e->place_depth++;
            emit_expr(e, p->args[0]);
            e->place_depth--;
            en_buf_printf(e->out, ").%c = en_value.%c;", lane_letters[p->swizzle[i] & 3], lane_letters[i]);
        }
        put(e, " }\n");
        return;
    }
    line_start(e);
    if (loose_vector_place(e, p)) { /* a whole vector written through a pointer of unproven alignment */
        put(e, "en_vstore_u(&");
        e->place_depth++;
        emit_expr(e, p);
        e->place_depth--;
        en_buf_printf(e->out, ", (%s)(", type_name(e, p->type));
        emit_expr(e, s->value);
        put(e, "));\n");
        return;
    }
    e->place_depth++;
    emit_expr(e, p);
    e->place_depth--;
    put(e, " = ");
    emit_expr(e, s->value);
    put(e, ";\n");
}

/* ---- unrolled nests of simdgroup multiplies (matrix_pairs.c) ------------------------------ */
/* one operand of an operation of the plan, with its loop variables' values */
static void emit_mad_arg(emitter *e, const en_mad *m, const ir_expr *x) {
    e->at = m;
    emit_expr(e, x);
    e->at = NULL;
}

static void emit_mad_dest(emitter *e, const en_mad *m) {
    if (m->dest) {
        emit_mad_arg(e, m, m->dest);
        return;
    }
    for (int i = 0; i < e->plan->decl_count; i++)
        if (e->plan->decls[i] == m->op->result) {
            put(e, copy_name(e, m->op->result, m->copies[i]));
            return;
        }
    put(e, var_name(e, m->op->result));
}

/* true when the load m writes a matrix variable held in the B layout */
static bool in_b_layout(const en_mad_plan *plan, const en_mad *m) {
    const ir_expr *place = m->dest;
    while (place && (place->kind == IR_E_INDEX || place->kind == IR_E_FIELD)) place = place->args[0];
    const ir_var *v = place && place->kind == IR_E_VAR ? place->var : place ? NULL : m->op->result;
    for (int i = 0; v && i < plan->decl_count; i++)
        if (plan->decls[i] == v) return plan->b_layout[i];
    return false;
}

/* a copy of a matrix variable declared in the nest */
static void emit_mad_decl(emitter *e, const en_mad_plan *plan, const en_mad *m) {
    const ir_var *v = m->op->var;
    int d = 0;
    while (d < plan->decl_count && plan->decls[d] != v) d++;
    line_start(e);
    e->b_layout = d < plan->decl_count && plan->b_layout[d];
    if (v->type->kind == IR_T_ARRAY)
        en_buf_printf(e->out, "en_private<%s, %u>", type_name(e, v->type->elem), v->type->count);
    else
        put(e, type_name(e, v->type));
    e->b_layout = false;
    en_buf_printf(e->out, " %s;%s\n", copy_name(e, v, m->copies[d]),
                  d < plan->decl_count && plan->b_layout[d] ? " // as mma.sync's B operand" : "");
}

/* an expression's C++ text */
static const char *expr_text(emitter *e, const ir_expr *x) {
    en_buf text = {0}, *out = e->out;
    e->out = &text;
    emit_expr(e, x);
    e->out = out;
    const char *r = en_fmt(&e->arena, "%s", text.data ? text.data : "");
    en_buf_free(&text);
    return r;
}

/* x as text, with m's loop variables' values */
static const char *mad_arg_text(emitter *e, const en_mad *m, const ir_expr *x) {
    e->at = m;
    const char *r = expr_text(e, x);
    e->at = NULL;
    return r;
}

/* ---- four loads in one ldmatrix.x4 ----
 * ldmatrix.x4 reads four 16-bit 8x8 matrices into four registers of each lane. Grouped in the
 * order a tensor-core instruction takes its operands (the A of an m16n8k16 is a1 a2 a1' a2';
 * the B operands b b' of two of them are four), the registers go to the instructions as they
 * are; grouped any other way, ptxas copies them into place (a copy per register). */
typedef struct load_group {
    int loads[4]; /* plan indices, in register order */
    int at;       /* where the group is emitted: its last load's place */
} load_group;

/* load m can share an ldmatrix.x4 with load m0: 16-bit matrices of one type and layout, rows
 * on 16 bytes of threadgroup memory, the same row length, origin and transpose */
static bool loads_match(emitter *e, const en_mad_plan *plan, const en_mad *m, const en_mad *m0) {
    if (m->kind != EN_MAD_LOAD || m0->kind != EN_MAD_LOAD || m->op->arg_count != m0->op->arg_count ||
        m->op->arg_count < 2 || m->op->result->type != m0->op->result->type || m->op->result->type->elem->size != 2 ||
        matrix_access_alignment(e, m->op, 0) != 2 || matrix_access_alignment(e, m0->op, 0) != 2 ||
        in_b_layout(plan, m) != in_b_layout(plan, m0))
        return false;
    for (int a = 1; a < m->op->arg_count; a++)
        if (strcmp(mad_arg_text(e, m, m->op->args[a]), mad_arg_text(e, m0, m0->op->args[a])) != 0) return false;
    return true;
}

/* the last load before `before` that writes the place `key`, or -1 */
static int load_of(const en_mad_plan *plan, const char *key, int before) {
    for (int i = before - 1; key && i >= 0; i--) {
        const en_mad *m = &plan->mads[i];
        if (m->kind != EN_MAD_DECL && m->writes && strcmp(m->writes, key) == 0) return m->kind == EN_MAD_LOAD ? i : -1;
    }
    return -1;
}

static bool reads_place(const en_mad *m, const char *key) {
    for (int i = 0; i < 3; i++)
        if (m->reads[i] && strcmp(m->reads[i], key) == 0) return true;
    return false;
}

static bool touches_place(const en_mad *m, const char *key) {
    return reads_place(m, key) || (m->writes && strcmp(m->writes, key) == 0);
}

/* the instruction emitted at plan index r reads or writes key: a load, or a multiply with its
 * partner and the earlier K step it does first (fused multiplies run where their instruction is) */
static bool instruction_touches(const en_mad_plan *plan, int r, const char *key) {
    const en_mad *m = &plan->mads[r];
    if (m->kind == EN_MAD_LOAD) return touches_place(m, key);
    if (m->fused || m->kind != EN_MAD_MULTIPLY) return false;
    const en_mad *f = m->k_first >= 0 ? &plan->mads[m->k_first] : NULL;
    return touches_place(m, key) || (m->partner >= 0 && touches_place(&plan->mads[m->partner], key)) ||
           (f && (touches_place(f, key) || (f->partner >= 0 && touches_place(&plan->mads[f->partner], key))));
}

/* the four loads may wait until the last of them: nothing between reads or writes what they load */
static bool group_may_wait(const en_mad_plan *plan, load_group *g) {
    g->at = g->loads[0];
    for (int k = 1; k < 4; k++) g->at = g->loads[k] > g->at ? g->loads[k] : g->at;
    for (int k = 0; k < 4; k++) {
        const char *key = plan->mads[g->loads[k]].writes;
        for (int r = g->loads[k] + 1; r < g->at; r++) {
            bool member = r == g->loads[0] || r == g->loads[1] || r == g->loads[2] || r == g->loads[3];
            if (!member && instruction_touches(plan, r, key)) return false;
        }
    }
    return true;
}

/* the loads of a run of n operand matrices read before `before`, when they can join a group */
static bool run_loads(emitter *e, const en_mad_plan *plan, const int *group_of, const char *const *keys, int n, int before,
                      int *loads) {
    for (int k = 0; k < n; k++) {
        loads[k] = load_of(plan, keys[k], before);
        if (loads[k] < 0 || group_of[loads[k]] >= 0 || !loads_match(e, plan, &plan->mads[loads[k]], &plan->mads[loads[0]]))
            return false;
        for (int j = 0; j < k; j++)
            if (loads[j] == loads[k]) return false;
    }
    return true;
}

/* groups of four loads in the order of the instructions' operands (group_of: per plan index) */
static int group_loads(emitter *e, const en_mad_plan *plan, int *group_of, load_group *groups) {
    int count = 0;
    int pending[2][2], has_pending[2] = {0, 0}; /* a run of two waiting for another: A, B */
    for (int i = 0; i < plan->count; i++) group_of[i] = -1;
    for (int i = 0; i < plan->count; i++) {
        const en_mad *m = &plan->mads[i];
        if (m->kind != EN_MAD_MULTIPLY || m->fused) continue;
        const en_mad *f = m->k_first >= 0 ? &plan->mads[m->k_first] : NULL;
        const en_mad *fq = f && f->partner >= 0 ? &plan->mads[f->partner] : NULL;
        const en_mad *q = m->partner >= 0 ? &plan->mads[m->partner] : NULL;
        /* the runs whose registers the instruction takes side by side: A of m16n8k16 (four),
         * A of a row pair (two), B of two K steps (two) */
        const char *runs[2][4];
        int lengths[2] = {0, 0};
        if (f && fq && q) {
            runs[0][0] = f->reads[0]; runs[0][1] = fq->reads[0]; runs[0][2] = m->reads[0]; runs[0][3] = q->reads[0];
            lengths[0] = 4;
        } else if (!f && q) {
            runs[0][0] = m->reads[0]; runs[0][1] = q->reads[0];
            lengths[0] = 2;
        }
        if (f) {
            runs[1][0] = f->reads[1]; runs[1][1] = m->reads[1];
            lengths[1] = 2;
        }
        for (int role = 0; role < 2; role++) {
            int loads[4];
            if (lengths[role] == 0 || !run_loads(e, plan, group_of, runs[role], lengths[role], i, loads)) continue;
            load_group g;
            if (lengths[role] == 4) {
                memcpy(g.loads, loads, sizeof loads);
            } else if (has_pending[role] && loads_match(e, plan, &plan->mads[loads[0]], &plan->mads[pending[role][0]]) &&
                       loads[0] != pending[role][0] && loads[0] != pending[role][1] && loads[1] != pending[role][0] &&
                       loads[1] != pending[role][1]) {
                g.loads[0] = pending[role][0]; g.loads[1] = pending[role][1]; g.loads[2] = loads[0]; g.loads[3] = loads[1];
                has_pending[role] = 0;
            } else {
                pending[role][0] = loads[0]; pending[role][1] = loads[1];
                has_pending[role] = 1;
                continue;
            }
            if (!group_may_wait(plan, &g)) continue;
            for (int k = 0; k < 4; k++) group_of[g.loads[k]] = count;
            groups[count++] = g;
        }
    }
    return count;
}

static void emit_load_group(emitter *e, const en_mad_plan *plan, const load_group *g) {
    const en_mad *m0 = &plan->mads[g->loads[0]];
    en_buf_printf(e->out, "%s<%s>(", in_b_layout(plan, m0) ? "en_matrix_load_b_x4" : "en_matrix_load_x4",
                  elem_name(e, m0->op->result->type));
    for (int k = 0; k < 4; k++) {
        emit_mad_dest(e, &plan->mads[g->loads[k]]);
        put(e, ", ");
    }
    for (int k = 0; k < 4; k++) {
        emit_mad_arg(e, &plan->mads[g->loads[k]], plan->mads[g->loads[k]].op->args[0]);
        put(e, ", ");
    }
    /* the row length, origin and transpose, which the four share */
    e->at = m0;
    for (int a = 1; a < 4; a++) {
        if (a > 1) put(e, ", ");
        if (a < m0->op->arg_count) emit_expr(e, m0->op->args[a]);
        else put(e, a == 2 ? "ulong2{0, 0}" : "false");
    }
    e->at = NULL;
    put(e, ");\n");
}

/* the operands of a multiply: a, b or c (k = 0, 1, 2) */
static void emit_mad_operand(emitter *e, const en_mad *m, int k) {
    put(e, ", ");
    emit_mad_arg(e, m, m->op->args[k]);
}

static void emit_mad_plan(emitter *e, const en_mad_plan *plan) {
    e->plan = plan;
    int *group_of = en_alloc(&e->arena, sizeof(int) * (size_t)plan->count);
    load_group *groups = en_alloc(&e->arena, sizeof(load_group) * (size_t)(plan->count / 4 + 1));
    group_loads(e, plan, group_of, groups);
    if (plan->decl_count > 0) { /* the copies of the nest's variables live in a block of their own */
        line_start(e);
        put(e, "{\n");
        e->indent++;
    }
    for (int i = 0; i < plan->count && !e->failed; i++) {
        const en_mad *m = &plan->mads[i];
        if (m->fused) continue;
        emit_source_comment(e, m->op->loc);
        if (m->kind == EN_MAD_DECL) {
            emit_mad_decl(e, plan, m);
            continue;
        }
        if (m->kind == EN_MAD_LOAD && group_of[i] >= 0) {
            /* four matrices in one ldmatrix.x4, where the last of them was */
            if (groups[group_of[i]].at == i) {
                line_start(e);
                emit_load_group(e, plan, &groups[group_of[i]]);
            }
            continue;
        }
        line_start(e);
        if (m->kind == EN_MAD_LOAD) {
            emit_mad_dest(e, m);
            put(e, " = ");
            e->at = m;
            emit_matrix_load(e, m->op, in_b_layout(plan, m));
            e->at = NULL;
            put(e, ";\n");
            continue;
        }
        if (m->k_first >= 0) {
            /* two K steps as one m16n8k16: d1 = a1*b + a1'*b' + c1 (and d2 with a2, a2', c2) */
            const en_mad *f = &plan->mads[m->k_first];
            const en_mad *fq = f->partner >= 0 ? &plan->mads[f->partner] : NULL;
            const en_mad *q = m->partner >= 0 ? &plan->mads[m->partner] : NULL;
            put(e, fq ? "en_matrix_multiply_accumulate2k(" : "en_matrix_multiply_accumulate1k(");
            emit_mad_dest(e, m);
            if (q) { put(e, ", "); emit_mad_dest(e, q); }
            emit_mad_operand(e, f, 0);
            if (fq) emit_mad_operand(e, fq, 0);
            emit_mad_operand(e, m, 0);
            if (q) emit_mad_operand(e, q, 0);
            emit_mad_operand(e, f, 1);
            emit_mad_operand(e, m, 1);
            emit_mad_operand(e, f, 2);
            if (fq) emit_mad_operand(e, fq, 2);
            put(e, ");\n");
            continue;
        }
        if (m->partner >= 0) {
            /* d1 = a1*b + c1 and d2 = a2*b + c2 as one tensor-core tile */
            const en_mad *q = &plan->mads[m->partner];
            put(e, "en_matrix_multiply_accumulate2(");
            emit_mad_dest(e, m);
            put(e, ", ");
            emit_mad_dest(e, q);
            emit_mad_operand(e, m, 0);
            emit_mad_operand(e, q, 0);
            emit_mad_operand(e, m, 1);
            emit_mad_operand(e, m, 2);
            emit_mad_operand(e, q, 2);
            put(e, ");\n");
            continue;
        }
        bool acc = m->op->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE;
        emit_mad_dest(e, m);
        en_buf_printf(e->out, " = %s<%s>(", acc ? "en_matrix_multiply_accumulate" : "en_matrix_multiply",
                      elem_name(e, m->op->result->type));
        for (int k = 0; k < (acc ? 3 : 2); k++) {
            if (k) put(e, ", ");
            emit_mad_arg(e, m, m->op->args[k]);
        }
        put(e, ");\n");
    }
    if (plan->decl_count > 0) {
        e->indent--;
        line_start(e);
        put(e, "}\n");
    }
    e->plan = NULL;
}

/* statements in order; a loop nest of simdgroup multiplies goes out unrolled and paired */
static void emit_wg_k_loop(emitter *e, const ir_stmt *decl, const ir_stmt *loop);
static void emit_wg_nest(emitter *e);

static void emit_stmts(emitter *e, ir_stmt *const *stmts, int count) {
    for (int i = 0; i < count && !e->failed; i++) {
        if (e->wg && i + 1 < count && stmts[i] == e->wg->k_decl) {
            emit_wg_k_loop(e, stmts[i], stmts[i + 1]);
            i++;
            continue;
        }
        if (e->wg && i + 1 < count && stmts[i] == e->wg->nest_decl) {
            emit_wg_nest(e);
            i++;
            continue;
        }
        en_mad_plan plan;
        int used = en_cuda_mad_plan(stmts, count, i, &e->arena, &plan);
        if (used > 0) {
            emit_mad_plan(e, &plan);
            i += used - 1;
            continue;
        }
        if (i + 1 < count && unrolls_private_array(stmts[i], stmts[i + 1])) e->unroll_next = stmts[i + 1];
        emit_stmt(e, stmts[i]);
    }
}

static bool emit_wg_pipe_stmt(emitter *e, const ir_stmt *s);

static void emit_stmt(emitter *e, const ir_stmt *s) {
    if (!s || e->failed) return;
    if (e->wg && e->wg_pipe && !e->wg_pipe_inside && emit_wg_pipe_stmt(e, s)) return;
    if (s->kind != IR_S_BLOCK) emit_source_comment(e, s->loc);
    switch (s->kind) {
    case IR_S_BLOCK:
        line_start(e);
        emit_braced(e, s);
        put(e, "\n");
        return;
    case IR_S_DECL:
        if (s->var->storage != IR_VAR_LOCAL) return; /* threadgroup: declared at the top */
        line_start(e);
        if (s->var->type->kind == IR_T_ARRAY) /* a thread's own array: out-of-range indices stay inside it (prelude) */
            en_buf_printf(e->out, "en_private<%s, %u> %s", type_name(e, s->var->type->elem), s->var->type->count,
                          var_name(e, s->var));
        else
            en_buf_printf(e->out, "%s %s", type_name(e, s->var->type), var_name(e, s->var));
        if (s->value) {
            put(e, " = ");
            emit_expr(e, s->value);
        }
        put(e, ";\n");
        return;
    case IR_S_ASSIGN: emit_assign(e, s); return;
    case IR_S_IF:
        line_start(e);
        put(e, "if (");
        emit_expr(e, s->cond);
        put(e, ") ");
        emit_braced(e, s->then_s);
        if (s->else_s) {
            put(e, " else ");
            emit_braced(e, s->else_s);
        }
        put(e, "\n");
        return;
    case IR_S_LOOP: emit_loop(e, s); return;
    case IR_S_BREAK:
    case IR_S_CONTINUE: {
        bool innermost = false;
        loop_frame *fr = find_loop(e, s->target, &innermost);
        if (!fr) { fail(e, s->loc, "a break or continue outside its loop"); return; }
        line_start(e);
        bool latch = fr->loop->latch && !(fr->loop->latch->kind == IR_S_BLOCK && fr->loop->latch->stmt_count == 0);
        if (s->kind == IR_S_BREAK) {
            if (innermost) put(e, "break;\n");
            else { fr->break_goto_used = true; en_buf_printf(e->out, "goto en_break_%d;\n", fr->label); }
        } else {
            /* a plain continue would skip the latch, which follows the body */
            if (innermost && !latch) put(e, "continue;\n");
            else { fr->continue_goto_used = true; en_buf_printf(e->out, "goto en_continue_%d;\n", fr->label); }
        }
        return;
    }
    case IR_S_RETURN:
        /* in a kernel the thread is done; it no longer holds up barriers (prelude.cuh) */
        line_start(e);
        put(e, "return;\n");
        return;
    case IR_S_INTRINSIC: emit_intrinsic(e, s); return;
    case IR_S_CALL: fail(e, s->loc, "a function call (the inline pass should have removed it)"); return;
    }
}

/* ---- the warpgroup form (wgmma.c) ------------------------------------------------------------ */
/* the staging array's row length */
static int wg_row(const en_wg_plan *plan, const ir_var *array) { return array == plan->a.array ? plan->a.row : plan->b.row; }

/* the 8-column cores of a staging row that the multiplies read: A's BK columns, B's 64 */
static int wg_cores(const en_wg_plan *plan, const ir_var *array) {
    return array == plan->a.array ? plan->k_steps * 2 : 8;
}

/* the bytes between the cores of a block row (prelude: en_wg_cores): 128 + 16 (8 / cores)
 * where the row's padding leaves room, so that 8 consecutive chunks of a row, or of 8 / cores
 * rows, start at 8 different 16-byte offsets modulo 128 and a quarter warp's chunk stores
 * meet no bank conflict; else 128 (cores back to back, as without padding; also where
 * $ENIGMA_CUDA_WGMMA is "packed", to time the difference) */
static int wg_core_stride(const en_wg_plan *plan, const ir_var *array) {
    const int cores = wg_cores(plan, array), row_bytes = wg_row(plan, array) * 16;
    if (plan->packed || cores > 8 || 8 % cores != 0) return 128;
    const int spread = 128 + 16 * (8 / cores);
    return (cores - 1) * spread + 128 <= row_bytes ? spread : 128;
}

/* Swizzled staging (prelude: en_wg_store_sw): A's rows are the BK columns of 16 bits, RB_A =
 * 2 BK bytes, which a swizzle mode covers for BK 16, 32 or 64; B's rows are 64 columns, 128
 * bytes. Each buffer is the rows the multiplies read, back to back (no padding), on 1024
 * bytes; the kernel's arrays of buffers keep their count. Not where $ENIGMA_CUDA_WGMMA asks for
 * the 8x8 cores (to time them), and not where the alignment could push the kernel's static
 * shared memory past its limit. */
static int wg_row_bytes(const en_wg_plan *plan, const ir_var *array) {
    return array == plan->a.array ? plan->k_steps * 32 : 128;
}
static int wg_rows(const en_wg_plan *plan, const ir_var *array) {
    return array == plan->a.array ? 64 : plan->k_steps * 16;
}
static bool wg_swizzles(const emitter *e, const en_wg_plan *plan) {
    const int rb = plan->k_steps * 32;
    return !plan->cores && (rb == 32 || rb == 64 || rb == 128) &&
           e->shared.static_bytes + 2 * 1024 + EN_WG_SCRATCH_BYTES <= EN_CUDA_STATIC_SHARED_LIMIT;
}

/* how a quad shares staging array v (wgmma_merge.c) */
static int wg_shared(const en_wg_plan *plan, const ir_var *v) {
    return v == plan->a.array ? plan->a_shared : plan->b_shared;
}

/* the buffers of a staging array in the wgmma entry point: the kernel's own count, or two
 * where the compiler pipelines a single one (wgmma_pipe.c) */
static int wg_buffers(const emitter *e, const ir_var *v) {
    const ir_type *t = v->type;
    return t->elem && t->elem->kind == IR_T_ARRAY ? (int)t->count : e->wg_pipe ? 2 : 1;
}

/* the count of a staging array's buffers as the declaration writes it: en_stages in a kernel
 * that has a quad's entry point (the compiler pipelines it: two buffers, or the quad's
 * stages: wgmma_merge.c) */
static const char *wg_buffers_text(emitter *e, const ir_var *v) {
    const ir_type *t = v->type;
    if (!(t->elem && t->elem->kind == IR_T_ARRAY) && e->wg_merge) return "en_stages";
    return en_fmt(&e->arena, "%d", wg_buffers(e, v));
}

/* a staging array's declaration in a warpgroup kernel: in the wgmma entry point swizzled
 * buffers of rows x RB bytes on 1024 bytes, in the others the kernel's own array. In a
 * kernel whose quads share their staging (wgmma_merge.c) the declaration is one array per
 * threadgroup row or column of the quad (the quad's entry point; one in the others), and
 * the kernel's name a reference to this threadgroup's */
static void emit_wg_staging_decl(emitter *e, const en_wg_plan *plan, const ir_var *v) {
    const ir_type *t = v->type, *buffers = t->elem && t->elem->kind == IR_T_ARRAY ? t : NULL;
    const ir_type *elem = buffers ? t->elem->elem : t->elem;
    const int count = wg_rows(plan, v) * wg_row_bytes(plan, v) / (int)elem->size;
    const char *swizzled = wg_buffers(e, v) > 1 || buffers
                               ? en_fmt(&e->arena, "en_array<en_array<%s, %d>, %s>", type_name(e, elem), count, wg_buffers_text(e, v))
                               : en_fmt(&e->arena, "en_array<%s, %d>", type_name(e, elem), count);
    if (!e->wg_merge) {
        en_buf_printf(e->out, "__shared__ alignas(EN_WG ? 1024 : 16) typename en_pick<(EN_WG > 0), %s, %s>::type %s; // wgmma: swizzled\n",
                      swizzled, type_name(e, t), var_name(e, v));
        return;
    }
    /* a quad's: in the dynamic shared memory (prelude: en_wg_staging), one copy a row or a
     * column of the quad, or one for all four (wgmma_merge.c) */
    const int shared = wg_shared(plan, v);
    const char *n = var_name(e, v);
    en_buf_printf(e->out, "typedef %s en_staging_%s; // wgmma: swizzled\n", swizzled, n);
    line_start(e);
    en_buf_printf(e->out, "__shared__ alignas(EN_WG == 1 ? 1024 : 16) typename en_pick<(EN_WG == 2), en_array<unsigned char, 16>, "
                          "typename en_pick<(EN_WG > 0), en_staging_%s, %s>::type>::type %s_en_own;\n",
                  n, type_name(e, t), n);
    const char *offset = en_fmt(&e->arena, "%uu + (%s) * (unsigned)sizeof(en_staging_%s)", en_cuda_quad_offset(plan, v),
                                shared == EN_WG_SHARED_X ? "en_q >> 1" : shared == EN_WG_SHARED_Y ? "en_q & 1u" : "0u", n);
    line_start(e);
    en_buf_printf(e->out, "auto &%s = en_wg_staging<EN_WG, en_staging_%s>(%s_en_own, %s); // in a quad, %s\n", n, n, n, offset,
                  shared == EN_WG_SHARED_X ? "one a row of it" : shared == EN_WG_SHARED_Y ? "one a column of it" : "one for all four");
    line_start(e);
    en_buf_printf(e->out, "const en_smem en_smem_%s = en_wg_staging_smem<EN_WG>(%s_en_own, %s); // its shared-window address\n", n, n,
                  offset);
}

/* the static shared memory of a quad's block: every threadgroup variable but the staging
 * (which is in dynamic memory) and the accumulators' scratch once per threadgroup */
static uint64_t wg_quad_static_bytes(const ir_func *f, const en_wg_plan *plan) {
    uint64_t bytes = 4u * EN_WG_SCRATCH_BYTES;
    for (int i = 0; i < f->threadgroup_vars.count; i++) {
        const ir_var *v = f->threadgroup_vars.items[i];
        bytes += v == plan->a.array || v == plan->b.array ? 16u : 4u * ((v->type->size + 15u) / 16u * 16u);
    }
    return bytes;
}

/* the start of a staging buffer, as its shared-window address (prelude: en_smem): the
 * array's, en_smem_X (emit_kernel takes it once), plus b buffers of an array of them */
static void emit_wg_buffer(emitter *e, const ir_var *array, const ir_expr *buffer) {
    const char *n = var_name(e, array);
    if (e->wg_copy_buffer) { /* the pipeline's buffer (wgmma_pipe.c) */
        en_buf_printf(e->out, "en_smem_%s + (unsigned)(%s) * (unsigned)sizeof(%s[0])", n, e->wg_copy_buffer, n);
        return;
    }
    en_buf_printf(e->out, "en_smem_%s", n);
    if (!buffer) return;
    put(e, " + (unsigned)(");
    emit_expr(e, buffer);
    en_buf_printf(e->out, ") * (unsigned)sizeof(%s[0])", n);
}

/* `fn<layout>(&X[b], offset terms, `: the call of a prelude function fn (en_wg_store,
 * en_wg_copy) on a chunk's place, its _sw form on swizzled staging */
static void emit_wg_place_call(emitter *e, const char *fn, const en_wg_pointer *to) {
    if (e->wg_swizzle)
        en_buf_printf(e->out, "%s_sw<%d, %d, %d>(", fn, wg_row(e->wg, to->array), wg_row_bytes(e->wg, to->array),
                      wg_rows(e->wg, to->array));
    else
        en_buf_printf(e->out, "%s<%d, %d, %d>(", fn, wg_row(e->wg, to->array), wg_cores(e->wg, to->array),
                      wg_core_stride(e->wg, to->array));
    emit_wg_buffer(e, to->array, to->buffer);
    put(e, ", ");
    for (int i = 0; i < to->term_count; i++) {
        put(e, i ? " + (long long)(" : "(long long)(");
        emit_expr(e, to->terms[i]);
        put(e, ")");
    }
}

/* in a quad, only one of the threadgroups that share a staging array fills it (prelude:
 * en_wg_copier): `if (...) ` before its chunk stores and copies */
static void emit_wg_copier(emitter *e, const ir_var *array) {
    if (e->wg_merge) en_buf_printf(e->out, "if (en_wg_copier<EN_WG, %d>(en_q)) ", wg_shared(e->wg, array));
}

/* a chunk store: the same 16 bytes, at their place in the wgmma layout (prelude:
 * en_wg_store_sw, en_wg_store) */
static void emit_wg_store(emitter *e, const ir_stmt *s, const en_wg_pointer *to) {
    if (e->wg_copy_role && to->array != e->wg_copy_role) return; /* the other role's copy */
    line_start(e);
    if (!e->wg_copy_role) emit_wg_copier(e, to->array);
    if (e->wg_pipe) { /* the device load it stores, copied asynchronously (wgmma_pipe.c) */
        emit_wg_place_call(e, e->wg_copy_form == WG_COPY_NOTED ? "en_wg_copy_note"
                              : e->wg_copy_form == WG_COPY_UNTESTED ? "en_wg_copy_untested" : "en_wg_copy", to);
        put(e, ", ");
        emit_expr(e, en_cuda_wgmma_copied_from(s));
        put(e, e->wg_copy_form == WG_COPY_NOTED ? ", en_copy_ok);\n" : ");\n");
        return;
    }
    emit_wg_place_call(e, "en_wg_store", to);
    en_buf_printf(e->out, ", (%s)(", type_name(e, s->place->type));
    emit_expr(e, s->value);
    put(e, "));\n");
}

/* a load and the chunk store it feeds as one asynchronous copy (wgmma_copy.c), at the load:
 * the store loop's index bound to the load's, its declarations before the store, then the
 * copy to the store's place (prelude: en_wg_copy) */
static void emit_wg_copy(emitter *e, const en_wg_copy *copy) {
    const en_wg_pointer *to = copy->to;
    line_start(e);
    put(e, "{ // wgmma: the load and its chunk store as one asynchronous copy\n");
    e->indent++;
    line_start(e);
    en_buf_printf(e->out, "%s %s = (%s)(%s);\n", type_name(e, copy->store_index->type), var_name(e, copy->store_index),
                  type_name(e, copy->store_index->type), var_name(e, copy->load_index));
    for (int i = 1; i < copy->store_at; i++)
        if (copy->store_body->stmts[i]->kind == IR_S_DECL) emit_stmt(e, copy->store_body->stmts[i]);
    line_start(e);
    emit_wg_copier(e, to->array);
    emit_wg_place_call(e, "en_wg_copy", to);
    put(e, ", ");
    emit_expr(e, copy->load->value->args[0]);
    put(e, ");\n");
    e->indent--;
    line_start(e);
    put(e, "}\n");
}

/* the place of accumulator k (one of the multiplies onto it, its loop variables bound) */
static void emit_wg_accumulator(emitter *e, int k) {
    e->plan = &e->wg->nest;
    emit_mad_arg(e, e->wg->acc_mads[k], e->wg->acc_mads[k]->dest);
    e->plan = NULL;
}

/* the accumulators of SIMD group sg that move in round q (prelude: en_wg_to_registers):
 * those on the 4 blocks of column q/2 in block rows 4 (q%2) .. 4 (q%2) + 3; with q < 0 (a
 * quad's one round through its staging, en_wg_quad_tile) all of them */
static bool wg_in_round(const en_wg_plan *wg, int sg, int k, int q) {
    const int block = wg->block[sg][k];
    return q < 0 || (block % 8 == q / 2 && block / 32 == q % 2);
}

/* round q of a move, the SIMD groups' side: each SIMD group stores (into_scratch) or loads
 * its accumulators of the round, known here for each group, so no table is read at run time:
 * through en_wg_scratch's slot of the block's row, or (q < 0) at the block in the whole tile */
static void emit_wg_round(emitter *e, int q, bool into_scratch) {
    for (int sg = 0; sg < 4; sg++) {
        bool any = false;
        for (int k = 0; k < EN_WG_ACCUMULATORS; k++) any |= wg_in_round(e->wg, sg, k, q);
        if (!any) continue;
        line_start(e);
        en_buf_printf(e->out, "if ((en_t.l >> 5) == %du) {\n", sg);
        e->indent++;
        for (int k = 0; k < EN_WG_ACCUMULATORS; k++) {
            if (!wg_in_round(e->wg, sg, k, q)) continue;
            line_start(e);
            const int block = e->wg->block[sg][k], slot = (block / 8) % 4;
            if (into_scratch) {
                if (q < 0) en_buf_printf(e->out, "en_wg_tile_put(en_tile, %d, ", block);
                else en_buf_printf(e->out, "en_wg_scratch[%d][en_hw_lane()] = en_wg_pair(", slot);
                emit_wg_accumulator(e, k);
                put(e, ");\n");
            } else {
                emit_wg_accumulator(e, k);
                if (q < 0) en_buf_printf(e->out, " = en_wg_tile_get(en_tile, %d);\n", block);
                else en_buf_printf(e->out, " = en_wg_matrix(en_wg_scratch[%d][en_hw_lane()]);\n", slot);
            }
        }
        e->indent--;
        line_start(e);
        put(e, "}\n");
    }
}

/* The accumulators between the SIMD groups and the warpgroup's registers (into: before the K
 * loop), in 16 rounds through 1 KB of shared memory (prelude: en_wg_to_registers), round q
 * taking 4 blocks of column q/2 of the tile's 8x8 blocks, so a thread's matrices and its MMA
 * registers are never all live at once. A quad whose staging memory holds its threadgroups'
 * four tiles moves them through it in one round (emit_wg_round with q = -1): that memory is
 * free before the K loop's first copies and after its last MMAs; 2 barriers instead of 32 each
 * way, and no registers spilled where the rounds keep a few of each kind live: +1.7% at
 * 4096^3 (bench/RESULTS.md, run 19) */
static void emit_wg_move(emitter *e, bool into) {
    if (e->wg_tile_move) {
        line_start(e);
        put(e, into ? "if constexpr (EN_WG == 2) { // a quad: in one round, through its staging memory\n"
                    : "if constexpr (EN_WG == 2) { // a quad: in one round, through its staging memory (the MMAs' reads of it done)\n");
        e->indent++;
        line_start(e);
        put(e, "float *const en_tile = en_wg_quad_tile(en_q);\n");
        if (!into) {
            line_start(e);
            put(e, "en_wg_proxy_fence(); __syncthreads(); en_wg_tile_from_registers(en_wg_d, en_tile); __syncthreads();\n");
        }
        emit_wg_round(e, -1, into);
        if (into) {
            line_start(e);
            put(e, "__syncthreads(); en_wg_tile_to_registers(en_wg_d, en_tile); __syncthreads();\n");
        }
        e->indent--;
        line_start(e);
        put(e, "} else {\n");
        e->indent++;
    }
    for (int q = 0; q < 16; q++) {
        if (into) emit_wg_round(e, q, true);
        line_start(e);
        en_buf_printf(e->out, "__syncthreads(); en_wg_%s_registers(en_wg_d, en_wg_scratch, %d); __syncthreads();\n",
                      into ? "to" : "from", q);
        if (!into) emit_wg_round(e, q, false);
    }
    if (e->wg_tile_move) {
        e->indent--;
        line_start(e);
        put(e, "}\n");
    }
}

/* the K loop, with the accumulators in the warpgroup's registers while it runs */
static void emit_wg_k_loop(emitter *e, const ir_stmt *decl, const ir_stmt *loop) {
    line_start(e);
    put(e, "// wgmma: the accumulators move into the warpgroup's registers (through shared memory)\n");
    emit_wg_move(e, true);
    emit_stmt(e, decl);
    emit_stmt(e, loop);
    line_start(e);
    put(e, "// wgmma: the accumulators back to the SIMD groups\n");
    line_start(e);
    put(e, e->wg->copy_count || e->wg_pipe ? "en_wg_copy_wait(); en_wg_wait(en_wg_d);\n" : "en_wg_wait(en_wg_d);\n");
    emit_wg_move(e, false);
}

/* the multiply nest: one wgmma per 16 of K for the whole tile */
static const char *wg_pipe_buffer(emitter *e, int ahead);

static void emit_wg_nest(emitter *e) {
    const en_wg_plan *wg = e->wg;
    if (e->wg_pipe) e->wg_copy_buffer = wg_pipe_buffer(e, 0);
    line_start(e);
    if (e->wg_swizzle)
        en_buf_printf(e->out, "en_wg_multiply_sw<%d, %d, %s>(en_wg_d, ", wg_row_bytes(wg, wg->a.array), wg->k_steps,
                      wg->bf16 ? "true" : "false");
    else
        en_buf_printf(e->out, "en_wg_multiply<%d, %d, %d, %d, %d, %s>(en_wg_d, ", wg->a.row,
                      wg_core_stride(wg, wg->a.array), wg->b.row, wg_core_stride(wg, wg->b.array), wg->k_steps,
                      wg->bf16 ? "true" : "false");
    emit_wg_buffer(e, wg->a.array, wg->a.buffer);
    put(e, ", ");
    emit_wg_buffer(e, wg->b.array, wg->b.buffer);
    en_buf_printf(e->out, "); // the nest's %d multiplies of each SIMD group\n", EN_WG_ACCUMULATORS * wg->k_steps * 2);
    e->wg_copy_buffer = NULL;
}

/* ---- the copy-then-multiply form pipelined (wgmma_pipe.c) ------------------------------------ */
/* the buffer of the counter's slice: steps counted from its first value (en_k_first) */
static const char *wg_pipe_buffer(emitter *e, int ahead) {
    const en_wg_plan *wg = e->wg;
    return en_fmt(&e->arena, "((%s - en_k_first) / (%s) + %du) %% %s", var_name(e, wg->k_var), expr_text(e, wg->k_step),
                  ahead, e->wg_merge ? "en_stages" : "2u");
}

/* the copy statements, where the loop would run: their chunk stores as cp.async into the
 * counter's slice's buffer (the counter in scope decides which slice) */
static void emit_wg_pipe_copy(emitter *e) {
    const en_wg_plan *wg = e->wg;
    const ir_stmt *body = wg->k_loop->body;
    line_start(e);
    put(e, "if (");
    emit_expr(e, wg->k_test);
    put(e, ") {\n");
    e->indent++;
    e->wg_pipe_inside = true;
    e->wg_copy_buffer = wg_pipe_buffer(e, 0);
    for (int i = wg->pipe_from; i < wg->pipe_to; i++) emit_stmt(e, body->stmts[i]);
    e->wg_copy_buffer = NULL;
    e->wg_pipe_inside = false;
    e->indent--;
    line_start(e);
    put(e, "}\n");
}

/* A quad whose staging arrays are filled by disjoint threadgroups (A's by the quad's
 * diagonal, B's by the others: wg_shared X and Y, en_wg_copier) runs, where its copy is
 * steady, a loop for each role: with both in one loop nvcc predicates the two roles' address
 * arithmetic into one stream that every warp issues (96 SASS instructions a step against 79 for
 * one role). $ENIGMA_CUDA_STEADY_COPY=1 keeps one untested loop (to time the difference). */
static bool wg_copy_roles(const emitter *e) {
    const int a = wg_shared(e->wg, e->wg->a.array), b = wg_shared(e->wg, e->wg->b.array);
    return e->wg_merge && en_cuda_steady_copy_setting() == EN_STEADY_COPY_ROLES &&
           ((a == EN_WG_SHARED_X && b == EN_WG_SHARED_Y) || (a == EN_WG_SHARED_Y && b == EN_WG_SHARED_X));
}

/* `<keyword> (EN_WG == 2 && en_copy_fast && this threadgroup fills `mine`) {` and the loop
 * with mine's copies only (the threadgroups that fill `other` fill none of mine). The quad's
 * threadgroups then run different copies of the loop, which pass the same barriers the same
 * number of times, each as barrier.sync without .aligned (prelude EN_BARRIER_DIVERGENT): the
 * aligned form (__syncthreads) wants every thread of the block at the same instruction. */
static void emit_wg_copy_role(emitter *e, const ir_stmt *loop, const ir_var *mine, const ir_var *other, const char *keyword) {
    line_start(e);
    en_buf_printf(e->out, "%s (EN_WG == 2 && en_copy_fast && en_wg_copier<EN_WG, %d>(en_q)) { // wgmma: the threadgroups that fill %s (not %s)\n",
                  keyword, wg_shared(e->wg, mine), var_name(e, mine), var_name(e, other));
    e->indent++;
    e->wg_copy_role = mine;
    emit_loop(e, loop);
    e->wg_copy_role = NULL;
    e->indent--;
}

/* the statements the pipeline changes: the K counter's declaration (then slice 0 before the
 * loop), the K loop (its waits), its copy statements (as at the next step) and the barrier
 * after them (left out); false for every other statement */
static bool emit_wg_pipe_stmt(emitter *e, const ir_stmt *s) {
    const en_wg_plan *wg = e->wg;
    const char *k = var_name(e, wg->k_var), *type = type_name(e, wg->k_var->type);
    const ir_stmt *body = wg->k_loop->body;
    if (s == wg->k_decl) {
        e->wg_pipe_inside = true;
        emit_stmt(e, s);
        e->wg_pipe_inside = false;
        line_start(e);
        en_buf_printf(e->out, "const %s en_k_first = %s; // wgmma: K steps counted from here (wgmma_pipe.c)\n", type, k);
        if (wg->copy_steady) { /* the first slices' chunks tell whether the loop may skip their tests */
            line_start(e);
            put(e, "bool en_copy_ok = true; // wgmma: so far, this thread's chunks whole, read by the multiplies, from aligned sources (wgmma_pipe.c: steady)\n");
            e->wg_copy_form = WG_COPY_NOTED;
        }
        const char *publish = wg->copy_steady ? "const bool en_copy_fast = __syncthreads_and(en_copy_ok);\n" : "EN_BARRIER();\n";
        if (!e->wg_merge) {
            line_start(e);
            put(e, "{ // wgmma: slice 0 into buffer 0 before the loop\n");
            e->indent++;
            emit_wg_pipe_copy(e);
            e->indent--;
            line_start(e);
            put(e, "}\n");
            line_start(e);
            put(e, "en_wg_copy_wait(); en_wg_proxy_fence(); ");
            put(e, publish);
            e->wg_copy_form = WG_COPY_TESTED;
            return true;
        }
        /* en_ahead slices before the loop, a group of copies each (the loop's waits count
         * them: en_wg_copy_wait_group), then the first en_steps of them waited for */
        line_start(e);
        put(e, "#pragma unroll\n");
        line_start(e);
        put(e, "for (unsigned en_s = 0; en_s < en_ahead; en_s++) { // wgmma: slices 0 .. en_ahead - 1 into their buffers before the loop\n");
        e->indent++;
        line_start(e);
        en_buf_printf(e->out, "const %s %s = en_k_first + en_s * (%s);\n", type, k, expr_text(e, wg->k_step));
        emit_wg_pipe_copy(e);
        line_start(e);
        put(e, "en_wg_copy_commit();\n");
        e->indent--;
        line_start(e);
        put(e, "}\n");
        line_start(e);
        put(e, "en_wg_copy_wait_group<en_ahead - en_steps>(); en_wg_proxy_fence(); ");
        put(e, publish);
        e->wg_copy_form = WG_COPY_TESTED;
        return true;
    }
    if (s == wg->k_loop) {
        emit_source_comment(e, s->loc);
        e->wg_in_k_loop = true;
        if (wg->copy_steady) { /* the block's chunks all passed: the loop without their tests */
            e->wg_copy_form = WG_COPY_UNTESTED;
            if (wg_copy_roles(e)) { /* in a quad, a loop for each copier's role (emit_wg_copy_role) */
                emit_wg_copy_role(e, s, wg->a.array, wg->b.array, "if");
                emit_wg_copy_role(e, s, wg->b.array, wg->a.array, "} else if");
                line_start(e);
                put(e, "} else if (en_copy_fast) { // wgmma: every chunk whole, read by the multiplies, from an aligned source at every step\n");
            } else {
                line_start(e);
                put(e, "if (en_copy_fast) { // wgmma: every chunk whole, read by the multiplies, from an aligned source at every step\n");
            }
            e->indent++;
            emit_loop(e, s);
            e->wg_copy_form = WG_COPY_TESTED;
            e->indent--;
            line_start(e);
            put(e, "} else { // wgmma: each chunk tested\n");
            e->indent++;
            emit_loop(e, s);
            e->indent--;
            line_start(e);
            put(e, "}\n");
        } else {
            emit_loop(e, s);
        }
        e->wg_in_k_loop = false;
        return true;
    }
    if (!e->wg_in_k_loop) return false;
    if (s == body->stmts[wg->pipe_from]) {
        line_start(e);
        if (e->wg_merge)
            put(e, "{ // wgmma: the copy statements as at step k + en_ahead, into its buffer\n");
        else
            put(e, "{ // wgmma: the copy statements as at the next step: slice k + 1 into buffer (k + 1) % 2\n");
        e->indent++;
        line_start(e);
        if (e->wg_merge)
            en_buf_printf(e->out, "const %s en_k_next = %s + en_ahead * (%s);\n", type, k, expr_text(e, wg->k_step));
        else
            en_buf_printf(e->out, "const %s en_k_next = %s + (%s);\n", type, k, expr_text(e, wg->k_step));
        line_start(e);
        en_buf_printf(e->out, "const %s %s = en_k_next;\n", type, k);
        emit_wg_pipe_copy(e);
        e->indent--;
        line_start(e);
        put(e, "}\n");
        if (e->wg_merge) {
            line_start(e);
            put(e, "en_wg_copy_commit();\n");
        }
        return true;
    }
    for (int i = wg->pipe_from + 1; i < wg->pipe_to; i++)
        if (s == body->stmts[i]) return true; /* emitted with the first */
    if (s == wg->pipe_barrier) {
        line_start(e);
        put(e, "// wgmma: (the barrier before the multiplies: this slice was published at the end of the last step)\n");
        return true;
    }
    return false;
}

/* the block of the 64x64 tile each SIMD group's accumulators are (for readers of the code
 * and the tests: the moves of emit_wg_k_loop have them built in) */
static void emit_wg_blocks(emitter *e, const en_wg_plan *wg) {
    en_buf_printf(e->out, "// wgmma: en_wg_blocks_%s[4][%d] = {", en_cuda_kernel_symbol(e->f), EN_WG_ACCUMULATORS);
    for (int s = 0; s < 4; s++) {
        put(e, s ? ", {" : "{");
        for (int k = 0; k < EN_WG_ACCUMULATORS; k++) en_buf_printf(e->out, "%s%d", k ? ", " : "", wg->block[s][k]);
        put(e, "}");
    }
    put(e, "}\n");
}

/* ---- variables: naming and the ones no statement declares --------------------------------- */
typedef struct var_scan {
    bool *declared;   /* by id */
    const ir_var **seen; /* by id: every local referenced */
    int count;
} var_scan;

static void scan_var(var_scan *vs, const ir_var *v) {
    if (v && v->storage == IR_VAR_LOCAL && v->id >= 0 && v->id < vs->count) vs->seen[v->id] = v;
}

static void scan_expr(var_scan *vs, const ir_expr *x) {
    if (!x) return;
    if (x->kind == IR_E_VAR) scan_var(vs, x->var);
    for (int i = 0; i < x->arg_count; i++) scan_expr(vs, x->args[i]);
}

/* the variables one statement declares and refers to (ir_stmt_each visits the statements
 * nested in it) */
static void scan_stmt(const ir_stmt *s, void *scan_ctx) {
    var_scan *vs = scan_ctx;
    switch (s->kind) {
    case IR_S_DECL:
        if (s->var && s->var->id >= 0 && s->var->id < vs->count) vs->declared[s->var->id] = true;
        scan_var(vs, s->var);
        scan_expr(vs, s->value);
        break;
    case IR_S_ASSIGN: scan_expr(vs, s->place); scan_expr(vs, s->value); break;
    case IR_S_IF: scan_expr(vs, s->cond); break;
    case IR_S_RETURN: scan_expr(vs, s->value); break;
    case IR_S_INTRINSIC:
    case IR_S_CALL:
        scan_var(vs, s->result);
        for (int i = 0; i < s->arg_count; i++) scan_expr(vs, s->args[i]);
        break;
    default: break;
    }
}

/* gives every variable of f a C++ name: its MSL name where that is free, else name_<id> */
static void name_vars(emitter *e, const ir_func *f, const var_scan *vs) {
    e->name_count = f->next_var_id;
    e->names = en_alloc(&e->arena, sizeof(char *) * (size_t)(f->next_var_id + 1));
    EN_VEC(const char *) taken = {0};
    for (int i = 0; i < e->m->structs.count; i++) EN_PUSH(&e->arena, taken, struct_name(e, e->m->structs.items[i]));
    for (int i = 0; i < e->global_name_count; i++)
        if (e->global_names[i]) EN_PUSH(&e->arena, taken, e->global_names[i]);
    for (int id = 0; id < vs->count; id++) {
        const ir_var *v = vs->seen[id];
        if (!v) continue;
        const char *base = identifier(&e->arena, v->name);
        bool clash = reserved_name(base);
        for (int k = 0; k < taken.count && !clash; k++) clash = strcmp(taken.items[k], base) == 0;
        const char *name = clash ? en_fmt(&e->arena, "%s_%d", base, v->id) : base;
        e->names[id] = name;
        EN_PUSH(&e->arena, taken, name);
    }
}

/* ---- thread_elements(): Apple's lane numbering ---------------------------------------------- */
/* thread_elements() arrives as *(vec<T, 2> *)&matrix (the front end): a pointer cast from a
 * pointer to a simdgroup matrix */
static bool is_matrix_storage_cast(const ir_expr *x, const void *unused) {
    (void)unused;
    return x->kind == IR_E_PTRCAST && x->args[0]->type->kind == IR_T_PTR &&
           x->args[0]->type->elem->kind == IR_T_SIMD_MATRIX;
}

bool en_cuda_apple_lanes(const ir_module *m) {
    /* a testing knob: every module numbered so, to run the SIMD-function suites through it */
    const char *force = getenv("ENIGMA_CUDA_APPLE_LANES");
    if (force && force[0] == '1') return true;
    for (int i = 0; i < m->funcs.count; i++)
        if (ir_stmt_any_expr(m->funcs.items[i]->body, is_matrix_storage_cast, NULL)) return true;
    return false;
}

/* ---- kernels ----------------------------------------------------------------------------- */
en_cuda_shared_layout en_cuda_shared_layout_of(const ir_func *k) {
    en_cuda_shared_layout l = {0};
    for (int i = 0; i < k->threadgroup_vars.count; i++) {
        const ir_type *t = k->threadgroup_vars.items[i]->type;
        uint64_t a = t->align ? t->align : 1;
        l.static_bytes = (l.static_bytes + a - 1) / a * a + t->size;
    }
    l.static_in_dynamic = l.static_bytes > EN_CUDA_STATIC_SHARED_LIMIT;
    return l;
}

/* the value of a position attribute, one expression per component */
/* quad: the kernel has a quad's entry point, whose block is not one threadgroup: the
 * threadgroup's position and the grid's size in threadgroups are en_b and en_g (emit_kernel) */
static void attr_components(ir_attr a, bool quad, const char *c[3]) {
    static const char *const zero = "0u";
    c[1] = c[2] = zero;
    switch (a) {
    case IR_ATTR_THREAD_POSITION_IN_GRID:
        c[0] = quad ? "en_b.x * en_p.group[0] + en_t.pos[0]" : "blockIdx.x * en_p.group[0] + en_t.pos[0]";
        c[1] = quad ? "en_b.y * en_p.group[1] + en_t.pos[1]" : "blockIdx.y * en_p.group[1] + en_t.pos[1]";
        c[2] = quad ? "en_b.z * en_p.group[2] + en_t.pos[2]" : "blockIdx.z * en_p.group[2] + en_t.pos[2]";
        return;
    case IR_ATTR_THREADS_PER_GRID: c[0] = "en_p.grid[0]"; c[1] = "en_p.grid[1]"; c[2] = "en_p.grid[2]"; return;
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: c[0] = "en_t.pos[0]"; c[1] = "en_t.pos[1]"; c[2] = "en_t.pos[2]"; return;
    case IR_ATTR_THREADS_PER_THREADGROUP: c[0] = "en_t.edge[0]"; c[1] = "en_t.edge[1]"; c[2] = "en_t.edge[2]"; return;
    case IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP: c[0] = "en_p.group[0]"; c[1] = "en_p.group[1]"; c[2] = "en_p.group[2]"; return;
    case IR_ATTR_THREADGROUP_POSITION_IN_GRID:
        if (quad) { c[0] = "en_b.x"; c[1] = "en_b.y"; c[2] = "en_b.z"; }
        else { c[0] = "blockIdx.x"; c[1] = "blockIdx.y"; c[2] = "blockIdx.z"; }
        return;
    case IR_ATTR_THREADGROUPS_PER_GRID:
        if (quad) { c[0] = "en_g.x"; c[1] = "en_g.y"; c[2] = "en_g.z"; }
        else { c[0] = "gridDim.x"; c[1] = "gridDim.y"; c[2] = "gridDim.z"; }
        return;
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP: c[0] = "en_t.l"; return;
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP: c[0] = "(en_t.l & 31u)"; return;
    case IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP: c[0] = "(en_t.l >> 5)"; return;
    case IR_ATTR_THREADS_PER_SIMDGROUP: c[0] = "32u"; return;
    case IR_ATTR_SIMDGROUPS_PER_THREADGROUP: c[0] = "((en_t.size + 31u) / 32u)"; return;
    case IR_ATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP: c[0] = "((en_t.group_volume + 31u) / 32u)"; return;
    case IR_ATTR_THREAD_EXECUTION_WIDTH: c[0] = "32u"; return;
    case IR_ATTR_THREAD_INDEX_IN_QUADGROUP: c[0] = "(en_t.l & 3u)"; return;
    case IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP: c[0] = "(en_t.l >> 2)"; return;
    case IR_ATTR_QUADGROUPS_PER_THREADGROUP: c[0] = "((en_t.size + 3u) / 4u)"; return;
    case IR_ATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP: c[0] = "((en_t.group_volume + 3u) / 4u)"; return;
    default: c[0] = zero; return;
    }
}

static void emit_attr(emitter *e, const ir_var *v) {
    const char *c[3];
    attr_components(v->attr, e->wg_merge, c);
    const char *tn = type_name(e, v->type);
    /* a kernel may write its own copy (ggml: `tgpig.z = 0;`) */
    const char *cq = v->is_assigned ? "" : "const ";
    line_start(e);
    if (v->type->kind == IR_T_VEC) {
        const char *en = elem_name(e, v->type);
        en_buf_printf(e->out, "%s%s %s = %s{", cq, tn, var_name(e, v), tn);
        for (unsigned i = 0; i < v->type->count && i < 3; i++)
            en_buf_printf(e->out, "%s(%s)(%s)", i ? ", " : "", en, c[i]);
        put(e, "};");
    } else {
        en_buf_printf(e->out, "%s%s %s = (%s)(%s);", cq, tn, var_name(e, v), tn, c[0]);
    }
    en_buf_printf(e->out, " // [[%s]]\n", ir_attr_name(v->attr));
}

/* A small `constant T &x [[buffer(n)]]` (internal.h): constant memory cannot change during a
 * dispatch, so one read at the start is exact; passing the value itself spares every
 * thread a global load that the rest of the kernel would wait on (the bound of a loop is
 * otherwise reloaded after each barrier). Scalars and vectors only: their CUDA types have
 * the MSL size and alignment, which the launch's by-value copy relies on. */
static bool small_constant_value(const ir_type *t) {
    if (t->kind == IR_T_VEC) t = t->elem;
    return ir_is_scalar(t);
}

bool en_cuda_param_by_value(const ir_var *p) {
    const ir_type *t = p->type;
    return p->param_kind == IR_PARAM_BUFFER && p->is_reference && t && t->kind == IR_T_PTR &&
           t->space == IR_SPACE_CONSTANT && t->elem && small_constant_value(t->elem) &&
           t->elem->size > 0 && t->elem->size <= EN_CUDA_BY_VALUE_MAX;
}

/* the kernel's parameters after en_p: their declarations, or their names alone (to forward
 * them); internal.h lists what each binding becomes */
static void emit_params(emitter *e, const ir_func *f, bool declare) {
    for (int i = 0; i < f->param_count; i++) {
        const ir_var *p = f->params[i];
        const char *n = var_name(e, p);
        if (en_cuda_param_by_value(p)) {
            if (declare)
                en_buf_printf(e->out, ",\n        %s en_ref_%s, const %s en_val_%s /* [[buffer(%d)]]: pointer, or NULL and the value */",
                              type_name(e, p->type), n, type_name(e, p->type->elem), n, p->binding);
            else
                en_buf_printf(e->out, ", en_ref_%s, en_val_%s", n, n);
        } else if (p->param_kind == IR_PARAM_BUFFER) {
            if (declare) en_buf_printf(e->out, ",\n        %s %s /* [[buffer(%d)]] */", type_name(e, p->type), n, p->binding);
            else en_buf_printf(e->out, ", %s", n);
        } else if (p->param_kind == IR_PARAM_THREADGROUP) {
            if (declare) en_buf_printf(e->out, ",\n        uint en_offset_%s /* [[threadgroup(%d)]] */", n, p->binding);
            else en_buf_printf(e->out, ", en_offset_%s", n);
        }
    }
}

/* [[threadgroup(n)]] parameters: the launch sizes them against what the static arrays leave */
static bool dynamic_memory(const ir_func *f) {
    for (int i = 0; i < f->param_count; i++)
        if (f->params[i]->param_kind == IR_PARAM_THREADGROUP) return true;
    return false;
}

static void emit_kernel(emitter *e, const ir_func *f) {
    e->f = f;
    e->loop_depth = 0;
    e->last_line = 0;
    var_scan vs = {.count = f->next_var_id};
    vs.declared = en_alloc(&e->arena, (size_t)(vs.count + 1));
    vs.seen = en_alloc(&e->arena, sizeof(ir_var *) * (size_t)(vs.count + 1));
    for (int i = 0; i < f->param_count; i++) scan_var(&vs, f->params[i]);
    for (int i = 0; i < f->threadgroup_vars.count; i++) {
        const ir_var *v = f->threadgroup_vars.items[i];
        if (v->id >= 0 && v->id < vs.count) vs.seen[v->id] = v;
    }
    ir_stmt_each(f->body, scan_stmt, &vs);
    name_vars(e, f, &vs);
    e->loose_vars = en_alloc(&e->arena, sizeof(bool) * (size_t)(e->name_count + 1));
    memset(e->loose_vars, 0, sizeof(bool) * (size_t)(e->name_count + 1));
    while (mark_loose(e, f->body)) {
    }
    e->shared = en_cuda_shared_layout_of(f);
    /* static __shared__ variables are declared __align__(16); carved from the dynamic
     * memory, they have their type's alignment */
    en_cuda_align_init(&e->align, f, !e->shared.static_in_dynamic, &e->arena);

    const char *file = f->loc.file >= 0 && e->m->sources && f->loc.file < e->m->sources->files.count
                           ? e->m->sources->files.items[f->loc.file].name : "<source>";
    en_buf_printf(e->out, "\n// kernel %s (%s:%d)\n", f->name, file, f->loc.line);
    const char *sym = en_cuda_kernel_symbol(f);
    bool dynamic = e->shared.static_in_dynamic;
    for (int i = 0; i < f->param_count; i++) {
        const ir_var *p = f->params[i];
        if (p->param_kind == IR_PARAM_THREADGROUP) dynamic = true;
        else if (p->param_kind != IR_PARAM_BUFFER && p->param_kind != IR_PARAM_ATTR)
            fail(e, p->loc, "a kernel parameter that is neither a buffer, threadgroup memory nor an attribute");
    }
    /* a GEMM the warpgroup can do with wgmma (wgmma.c): its block table first */
    en_wg_plan wg;
    bool warpgroup = !e->apple_lanes && !dynamic_memory(f) &&
                     e->shared.static_bytes + EN_WG_SCRATCH_BYTES <= EN_CUDA_STATIC_SHARED_LIMIT &&
                     en_cuda_wgmma_plan(f, &e->arena, &wg);
    if (warpgroup) emit_wg_blocks(e, &wg);
    e->wg_swizzle = warpgroup && wg_swizzles(e, &wg);
    e->wg_pipe = e->wg_swizzle && wg.pipe;
    /* a quad of threadgroups as one block (wgmma_merge.c): where the compiler pipelines the
     * copy into swizzled staging (its buffers, and so their count, are the compiler's), with
     * the other threadgroup variables in static shared memory */
    const uint64_t quad_static = e->wg_pipe && wg.merge ? wg_quad_static_bytes(f, &wg) : 0;
    e->wg_merge = e->wg_pipe && wg.merge && !e->shared.static_in_dynamic && quad_static <= EN_CUDA_STATIC_SHARED_LIMIT &&
                  quad_static + en_cuda_quad_shared_bytes(&wg) <= EN_CUDA_QUAD_SHARED_LIMIT;
    e->wg_tile_move = e->wg_merge && en_cuda_quad_shared_bytes(&wg) >= 1024u + 4u * EN_WG_TILE_BYTES;
    /* the body, once, as a template; the entry points after it instantiate it (EN_WG: 0 the
     * kernel as written, 1 the warpgroup form, 2 the warpgroup form of a quad's threadgroup) */
    en_buf_printf(e->out, "template <bool EN_FAST%s> static __device__ __forceinline__ void en_kernel_%s(const en_dispatch &en_p",
                  warpgroup ? ", int EN_WG" : "", sym);
    emit_params(e, f, true);
    put(e, ") {\n");
    e->indent = 1;
    if (dynamic) {
        line_start(e);
        put(e, "extern __shared__ __align__(16) unsigned char en_dynamic_shared[];\n");
    }
    if (e->wg_merge) {
        /* which threadgroup of the block this thread's is: x + 2 y in a quad (EN_WG 2, a block
         * of 512 threads, the quad's threadgroups one after another), else 0; its position */
        line_start(e);
        put(e, "const unsigned en_q = EN_WG == 2 ? threadIdx.x >> 7 : 0u; // this thread's threadgroup in a quad\n");
        line_start(e);
        put(e, "const ::uint3 en_b = en_wg_group_position<EN_WG>(), en_g = en_wg_groups<EN_WG>(); // its position, the grid's groups\n");
        /* a quad: S buffers, a barrier every second step, S - 3 slices copied ahead and one
         * step's MMAs left running past a barrier (the copies of the next two steps write
         * neither the buffers those MMAs read nor the two the steps multiply); a single
         * threadgroup: two buffers, a barrier a step, one slice ahead, the MMAs waited for */
        const int stages = en_cuda_quad_stages();
        line_start(e);
        en_buf_printf(e->out, "constexpr unsigned en_stages = EN_WG == 2 ? %du : 2u, en_ahead = EN_WG == 2 ? %du : 1u, "
                              "en_steps = EN_WG == 2 ? 2u : 1u; // staging buffers, slices copied ahead, steps a barrier (wgmma_merge.c)\n",
                      stages, stages - 3);
        line_start(e);
        put(e, "constexpr int en_mma_depth = EN_WG == 2 ? 1 : 0; // steps of MMAs running past a barrier\n");
    }
    /* kernel-scope threadgroup variables */
    uint64_t offset = 0;
    for (int i = 0; i < f->threadgroup_vars.count; i++) {
        const ir_var *v = f->threadgroup_vars.items[i];
        uint64_t a = v->type->align ? v->type->align : 1;
        offset = (offset + a - 1) / a * a;
        line_start(e);
        if (e->shared.static_in_dynamic)
            en_buf_printf(e->out, "%s &%s = *(%s *)(en_dynamic_shared + %llu); // threadgroup\n",
                          type_name(e, v->type), var_name(e, v), type_name(e, v->type), (unsigned long long)offset);
        else if (e->wg_swizzle && (v == wg.a.array || v == wg.b.array))
            emit_wg_staging_decl(e, &wg, v);
        else if (e->wg_merge) { /* each threadgroup of a quad its own */
            en_buf_printf(e->out, "__shared__ __align__(16) %s %s_en_quad[EN_WG == 2 ? 4 : 1];\n", type_name(e, v->type), var_name(e, v));
            line_start(e);
            en_buf_printf(e->out, "%s &%s = %s_en_quad[en_q];\n", type_name(e, v->type), var_name(e, v), var_name(e, v));
        } else
            en_buf_printf(e->out, "__shared__ __align__(16) %s %s;\n", type_name(e, v->type), var_name(e, v));
        offset += v->type->size;
    }
    /* by-value constants: the body reads them through a pointer to a local copy, which the
     * compiler resolves to a register */
    for (int i = 0; i < f->param_count; i++) {
        const ir_var *p = f->params[i];
        if (!en_cuda_param_by_value(p)) continue;
        const char *n = var_name(e, p);
        line_start(e);
        en_buf_printf(e->out, "%s en_copy_%s = EN_FAST || !en_ref_%s ? en_val_%s : *en_ref_%s;\n",
                      type_name(e, p->type->elem), n, n, n, n);
        line_start(e);
        en_buf_printf(e->out, "%s %s = &en_copy_%s; // [[buffer(%d)]]\n", type_name(e, p->type), n, n, p->binding);
    }
    line_start(e);
    put(e, "en_thread en_t;\n");
    line_start(e);
    if (e->wg_merge)
        put(e, "if (!(EN_WG == 2 ? en_locate_quad(en_t) : EN_FAST ? en_locate_1d(en_p, en_t) : en_locate(en_p, en_t))) return; // past the edge of a dispatch by threads\n");
    else
        put(e, "if (!(EN_FAST ? en_locate_1d(en_p, en_t) : en_locate(en_p, en_t))) return; // past the edge of a dispatch by threads\n");
    for (int i = 0; i < f->param_count; i++) {
        const ir_var *p = f->params[i];
        if (p->param_kind == IR_PARAM_ATTR) emit_attr(e, p);
        if (p->param_kind == IR_PARAM_THREADGROUP) {
            line_start(e);
            en_buf_printf(e->out, "%s %s = (%s)(en_dynamic_shared + en_offset_%s); // [[threadgroup(%d)]]\n",
                          type_name(e, p->type), var_name(e, p), type_name(e, p->type), var_name(e, p), p->binding);
        }
    }
    /* variables that no statement declares (results of intrinsics, temporaries) */
    for (int id = 0; id < vs.count; id++) {
        const ir_var *v = vs.seen[id];
        if (!v || vs.declared[id] || v->storage != IR_VAR_LOCAL || v->param_kind != IR_PARAM_NONE) continue;
        bool is_param = false;
        for (int i = 0; i < f->param_count; i++) is_param |= f->params[i] == v;
        if (is_param) continue;
        line_start(e);
        en_buf_printf(e->out, "%s %s;\n", type_name(e, v->type), var_name(e, v));
    }
    if (warpgroup) {
        /* the body twice: as the warpgroup's GEMM in the entry point of its own (EN_WG, on an
         * sm_90a device, which driver.c takes where the threadgroup is one warpgroup), and as
         * it was in the others: apart, each entry point has the registers its own form needs */
        put(e, "#ifdef EN_WGMMA\n");
        line_start(e);
        /* constexpr: the form not taken is not instantiated, so each may see the staging
         * arrays in its own type (a pipelined copy-then-multiply kernel's one buffer is two
         * in the wgmma form: wgmma_pipe.c) */
        put(e, "if constexpr (EN_WG) {\n");
        e->indent++;
        line_start(e);
        if (e->wg_merge) {
            en_buf_printf(e->out, "__shared__ __align__(16) ::float2 en_wg_scratch_en_quad[EN_WG == 2 ? 4 : 1][4][32]; // the accumulators between layouts, 4 blocks at a time (%d bytes a threadgroup)\n", EN_WG_SCRATCH_BYTES);
            line_start(e);
            put(e, "auto &en_wg_scratch = en_wg_scratch_en_quad[en_q];\n");
        } else {
            en_buf_printf(e->out, "__shared__ __align__(16) ::float2 en_wg_scratch[4][32]; // the accumulators between layouts, 4 blocks at a time (%d bytes)\n", EN_WG_SCRATCH_BYTES);
        }
        line_start(e);
        put(e, "float en_wg_d[32] = {}; // this thread's part of the 64x64 tile, in wgmma's accumulator layout\n");
        if (!e->wg_merge) { /* a quad's are taken with its declarations */
            line_start(e);
            en_buf_printf(e->out, "const en_smem en_smem_%s = en_smem_of(&%s), en_smem_%s = en_smem_of(&%s); // the staging's shared-window addresses\n",
                          var_name(e, wg.a.array), var_name(e, wg.a.array), var_name(e, wg.b.array), var_name(e, wg.b.array));
        }
        /* the entry point runs only whole 128-thread groups (driver.c): said to nvcc, the
         * copy-then-multiply form's loops over a group's chunks from the thread index (`for
         * (c = tid; c < 256; c += 128)`), which the pipeline runs twice, have a known trip
         * count and unroll (gemm_f16 167.5 -> 180 TFLOP/s on the H100; the hand-pipelined
         * form, whose loops count from 0, lost 1% with it, so only there) */
        if (e->wg_pipe) {
            line_start(e);
            put(e, "__builtin_assume(en_t.l < 128u);\n");
        }
        e->wg = &wg;
        emit_block_body(e, f->body);
        e->wg = NULL;
        e->indent--;
        line_start(e);
        put(e, "} else\n");
        put(e, "#endif\n");
        line_start(e);
        put(e, "{\n");
        e->indent++;
        emit_block_body(e, f->body);
        e->indent--;
        line_start(e);
        put(e, "}\n");
    } else {
        emit_block_body(e, f->body);
    }
    put(e, "}\n");
    /* the entry points: the general one, EN_CUDA_FAST_SUFFIX for dispatches of 1-D
     * threadgroups whose constant references all arrive by value, and, for a warpgroup GEMM
     * built for sm_90a, EN_CUDA_WARPGROUP_SUFFIX for whole threadgroups of 128 threads
     * (driver.c picks) */
    for (int entry = 0; entry < (e->wg_merge ? 4 : warpgroup ? 3 : 2); entry++) {
        if (entry >= 2) put(e, "#ifdef EN_WGMMA\n");
        put(e, "extern \"C\" __global__ void ");
        if (entry == 2) /* 7 threadgroups an SM: at most 72 registers (the form needs ~64-74);
                         * 8 (at most 64) where the next slice's copy is asynchronous and no
                         * register holds it (ptxas -v: 64, no spills; 72 and spills without) */
            en_buf_printf(e->out, "__launch_bounds__(128, %d) ", wg.copy_count || e->wg_pipe ? 8 : 7);
        else if (entry == 3) /* a quad: the same 64 registers, two blocks an SM (one block of
                              * 80 registers measured 5% slower: bench/RESULTS.md) */
            put(e, "__launch_bounds__(512, 2) ");
        else if (f->max_total_threads_per_threadgroup)
            en_buf_printf(e->out, "__launch_bounds__(%u) ", e->apple_lanes ? (f->max_total_threads_per_threadgroup + 31u) / 32u * 32u
                                                                           : f->max_total_threads_per_threadgroup);
        en_buf_printf(e->out, "%s%s(const en_dispatch en_p", sym, en_cuda_entry_suffix(entry));
        emit_params(e, f, true);
        en_buf_printf(e->out, ") {\n    en_kernel_%s<%s%s>(en_p", sym, entry == 1 ? "true" : "false",
                      !warpgroup ? "" : entry == 2 ? ", 1" : entry == 3 ? ", 2" : ", 0");
        emit_params(e, f, false);
        put(e, ");\n}\n");
        if (entry >= 2) put(e, "#endif\n");
    }
}

/* ---- structs and constants ------------------------------------------------------------------ */
static void emit_struct(emitter *e, const ir_type *t) {
    /* declared and never defined (ggml's repeated `struct global_scope_noop_trick;`): no
     * object of it exists, so there is nothing to define */
    if (t->size == 0 && t->field_count == 0) return;
    const char *name = struct_name(e, t);
    en_buf_printf(e->out, "\nstruct %s {\n", name);
    /* C++ lays fields out by the same rule as MSL (each at the next multiple of its
     * alignment); explicit padding keeps the MSL offsets should the two ever differ */
    uint32_t natural = 0;
    for (int i = 0; i < t->field_count; i++) {
        const ir_type *ft = t->fields[i].type;
        uint32_t a = ft->align ? ft->align : 1;
        natural = (natural + a - 1) / a * a;
        if (t->fields[i].offset > natural) {
            en_buf_printf(e->out, "    char en_pad_%d[%u];\n", i, t->fields[i].offset - natural);
            natural = t->fields[i].offset;
        }
        en_buf_printf(e->out, "    %s %s; // offset %u\n", type_name(e, ft),
                      field_name(e, t->fields[i].name), t->fields[i].offset);
        natural += ft->size;
    }
    put(e, "};\n");
    /* the C++ layout must be MSL's: the host writes these bytes (NVRTC has no offsetof) */
    en_buf_printf(e->out, "static_assert(sizeof(%s) == %u && alignof(%s) == %u, \"MSL layout of %s\");\n",
                  name, t->size, name, t->align, t->name);
}

static void name_globals(emitter *e) {
    e->global_name_count = e->m->next_global_id;
    e->global_names = en_alloc(&e->arena, sizeof(char *) * (size_t)(e->global_name_count + 1));
    for (int i = 0; i < e->m->globals.count; i++) {
        const ir_var *g = e->m->globals.items[i];
        if (g->id < 0 || g->id >= e->global_name_count) continue;
        const char *base = identifier(&e->arena, g->name);
        e->global_names[g->id] = reserved_name(base) ? en_fmt(&e->arena, "%s_g%d", base, g->id) : base;
    }
}

static int compare_names(const void *a, const void *b) {
    return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

/* gives every struct a C++ name: its MSL name, made an identifier; where two structs share one
 * (a local struct of a function template, `typedef struct {...} vec_w;`, is a new struct in
 * each instance), the later ones take their module index as a suffix */
static void name_structs(emitter *e) {
    int n = e->m->structs.count;
    e->struct_names = en_alloc(&e->arena, sizeof(char *) * (size_t)(n + 1));
    const char ***order = en_alloc(&e->arena, sizeof(char **) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const char *s = identifier(&e->arena, e->m->structs.items[i]->name);
        e->struct_names[i] = reserved_name(s) ? en_fmt(&e->arena, "%s_", s) : s;
        order[i] = &e->struct_names[i];
    }
    if (e->arena.out_of_memory) return;
    qsort(order, (size_t)n, sizeof *order, compare_names);
    /* within a run of equal names the earliest struct keeps the name: order by address */
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && strcmp(*order[i], *order[j]) == 0) j++;
        const char **first = order[i];
        for (int k = i + 1; k < j; k++)
            if (order[k] < first) first = order[k];
        for (int k = i; k < j; k++)
            if (order[k] != first) *order[k] = en_fmt(&e->arena, "%s_s%d", *order[k], (int)(order[k] - e->struct_names));
        i = j;
    }
}

enigma_status en_cuda_emit(const ir_module *m, en_buf *out, en_buf *err) {
    emitter e = {.m = m, .out = out, .err = err};
    en_arena_init(&e.arena);
    put(&e, "// generated by enigma from Metal Shading Language: the cuda backend's CUDA C++\n");
    e.apple_lanes = en_cuda_apple_lanes(m);
    if (e.apple_lanes) put(&e, "#define EN_APPLE_LANES 1 // the module calls thread_elements() (prelude.cuh: lane numbering)\n");
    put(&e, en_cuda_prelude);
    put(&e, "\nnamespace metal {\n");
    name_structs(&e);
    name_globals(&e);
    for (int i = 0; i < m->structs.count; i++) emit_struct(&e, m->structs.items[i]);
    for (int i = 0; i < m->globals.count; i++) {
        const ir_var *g = m->globals.items[i];
        en_buf_printf(out, "\n__device__ const %s %s = ", type_name(&e, g->type), var_name(&e, g));
        if (g->init) emit_expr(&e, g->init); else put(&e, "{}");
        put(&e, ";\n");
    }
    for (int i = 0; i < m->funcs.count && !e.failed; i++) {
        const ir_func *f = m->funcs.items[i];
        if (!f->is_kernel) {
            fail(&e, f->loc, "a helper function (the inline pass should have removed it)");
            break;
        }
        emit_kernel(&e, f);
    }
    put(&e, "\n} // namespace metal\n");
    bool oom = e.arena.out_of_memory || out->out_of_memory;
    en_arena_free(&e.arena);
    if (oom) {
        en_buf_puts(err, "out of memory while generating CUDA C");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    return e.failed ? ENIGMA_ERROR_INTERNAL : ENIGMA_OK;
}
