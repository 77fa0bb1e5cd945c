/* types.c — MSL's built-in type names onto ir_type.
 *
 * Needs: a module to intern types in. Guarantees: every scalar, vector (plain and
 * packed_), atomic and simdgroup_matrix spelling of MSL 3.x maps to its ir_type with MSL
 * layout (the IR builders apply it); spellings of features enigma leaves out (double,
 * textures, samplers, matrices...) are recognised so the checker can reject them by name
 * rather than call them unknown. */
#include "check.h"

#include <string.h>

typedef struct scalar_name {
    const char *name;
    ir_type_kind kind;
    bool has_vectors; /* "float4" etc. exist for this spelling */
} scalar_name;

/* Metal spec, "Scalar Data Types" and "Vector Data Types" */
static const scalar_name scalar_names[] = {
    {"void", IR_T_VOID, false},
    {"bool", IR_T_BOOL, true},
    {"char", IR_T_I8, true},
    {"uchar", IR_T_U8, true},
    {"short", IR_T_I16, true},
    {"ushort", IR_T_U16, true},
    {"int", IR_T_I32, true},
    {"uint", IR_T_U32, true},
    {"long", IR_T_I64, true},
    {"ulong", IR_T_U64, true},
    {"half", IR_T_F16, true},
    {"bfloat", IR_T_BF16, true},
    {"float", IR_T_F32, true},
    {"size_t", IR_T_U64, false},
    {"ptrdiff_t", IR_T_I64, false},
    {"int8_t", IR_T_I8, false},
    {"uint8_t", IR_T_U8, false},
    {"int16_t", IR_T_I16, false},
    {"uint16_t", IR_T_U16, false},
    {"int32_t", IR_T_I32, false},
    {"uint32_t", IR_T_U32, false},
    {"int64_t", IR_T_I64, false},
    {"uint64_t", IR_T_U64, false},
    /* C spellings the parser may hand over as one name */
    {"signed char", IR_T_I8, false},
    {"unsigned char", IR_T_U8, false},
    {"unsigned short", IR_T_U16, false},
    {"signed short", IR_T_I16, false},
    {"short int", IR_T_I16, false},
    {"unsigned short int", IR_T_U16, false},
    {"unsigned", IR_T_U32, false},
    {"unsigned int", IR_T_U32, false},
    {"signed", IR_T_I32, false},
    {"signed int", IR_T_I32, false},
    {"long int", IR_T_I64, false},
    {"long long", IR_T_I64, false},
    {"long long int", IR_T_I64, false},
    {"unsigned long", IR_T_U64, false},
    {"unsigned long int", IR_T_U64, false},
    {"unsigned long long", IR_T_U64, false},
    {"unsigned long long int", IR_T_U64, false},
    {"uintptr_t", IR_T_U64, false},
    {"intptr_t", IR_T_I64, false},
};

ir_type *ck_scalar_type(ir_module *m, const char *name) {
    for (size_t i = 0; i < EN_COUNT(scalar_names); i++)
        if (en_streq(scalar_names[i].name, name)) return ir_type_scalar(m, scalar_names[i].kind);
    return NULL;
}

/* "float4", "packed_half3", "bool2" */
static ir_type *vector_type(ir_module *m, const char *name) {
    bool packed = strncmp(name, "packed_", 7) == 0;
    if (packed) name += 7;
    size_t n = strlen(name);
    if (n < 2) return NULL;
    char last = name[n - 1];
    if (last < '2' || last > '4') return NULL;
    for (size_t i = 0; i < EN_COUNT(scalar_names); i++) {
        const scalar_name *s = &scalar_names[i];
        if (!s->has_vectors || strlen(s->name) != n - 1 || strncmp(s->name, name, n - 1)) continue;
        return ir_type_vec(m, ir_type_scalar(m, s->kind), (uint32_t)(last - '0'), packed);
    }
    return NULL;
}

/* float4x4, half2x3, bfloat4x4: MSL's C columns of R-lane vectors (floatCxR), which the
 * IR holds as an array of C vectors: m[i] is column i, m[i][j] its lane j, and the layout
 * (columns of 8 or 16 bytes) is MSL's */
ir_type *ck_matrix_type(ir_module *m, ir_type *elem, int cols, int rows) {
    if (!elem || cols < 2 || cols > 4 || rows < 2 || rows > 4) return NULL;
    return ir_type_array(m, ir_type_vec(m, elem, (uint32_t)rows, false), (uint32_t)cols);
}

static ir_type *float_matrix_type(ir_module *m, const char *name) {
    static const struct { const char *base; ir_type_kind elem; } bases[] = {
        {"float", IR_T_F32}, {"half", IR_T_F16}, {"bfloat", IR_T_BF16},
    };
    for (size_t i = 0; i < EN_COUNT(bases); i++) {
        size_t n = strlen(bases[i].base);
        if (strncmp(name, bases[i].base, n) == 0 && strlen(name) == n + 3 && name[n] >= '2' &&
            name[n] <= '4' && name[n + 1] == 'x' && name[n + 2] >= '2' && name[n + 2] <= '4')
            return ck_matrix_type(m, ir_type_scalar(m, bases[i].elem), name[n] - '0', name[n + 2] - '0');
    }
    return NULL;
}

ir_type *ck_named_builtin_type(ir_module *m, const char *name) {
    if (!name) return NULL;
    ir_type *t = ck_scalar_type(m, name);
    if (t) return t;
    if ((t = vector_type(m, name))) return t;
    /* the standard library's enumerations (<metal_atomic>, <metal_compute>) are held as their
     * values, with the integer type language_constant (check_expr.c) gives their enumerators */
    static const struct { const char *name; ir_type_kind kind; } enums[] = {
        {"mem_flags", IR_T_U32}, {"memory_order", IR_T_I32}, {"thread_scope", IR_T_I32},
    };
    for (size_t i = 0; i < EN_COUNT(enums); i++)
        if (en_streq(name, enums[i].name)) return ir_type_scalar(m, enums[i].kind);
    static const struct { const char *name; ir_type_kind elem; } atomics[] = {
        {"atomic_int", IR_T_I32}, {"atomic_uint", IR_T_U32}, {"atomic_bool", IR_T_BOOL},
        {"atomic_float", IR_T_F32}, {"atomic_ulong", IR_T_U64}, {"atomic_long", IR_T_I64},
    };
    for (size_t i = 0; i < EN_COUNT(atomics); i++)
        if (en_streq(name, atomics[i].name))
            return ir_type_atomic(m, ir_type_scalar(m, atomics[i].elem));
    static const struct { const char *name; ir_type_kind elem; } matrices[] = {
        {"simdgroup_float8x8", IR_T_F32}, {"simdgroup_half8x8", IR_T_F16},
        {"simdgroup_bfloat8x8", IR_T_BF16},
    };
    for (size_t i = 0; i < EN_COUNT(matrices); i++)
        if (en_streq(name, matrices[i].name))
            return ir_type_matrix(m, ir_type_scalar(m, matrices[i].elem));
    return float_matrix_type(m, name);
}

/* a type that only the checker sees as distinct: simd_vote behaves as a 64-bit mask in the
 * IR (kind U64) but converts to integers only explicitly */
ir_type *ck_vote_type(ir_module *m) {
    static const char key[] = "simd_vote";
    /* one per module, kept in the type table after the interned ulong */
    for (int i = 0; i < m->types.count; i++) {
        ir_type *t = m->types.items[i];
        if (t->kind == IR_T_U64 && t->name && en_streq(t->name, key)) return t;
    }
    ir_type *t = en_alloc(m->arena, sizeof *t);
    t->kind = IR_T_U64;
    t->size = t->align = 8;
    t->name = key;
    /* appended after the interned u64 exists, so interning never returns it for plain ulong */
    ir_type_scalar(m, IR_T_U64);
    EN_PUSH(m->arena, m->types, t);
    return t;
}

bool ck_is_vote(const ir_type *t) { return t && t->kind == IR_T_U64 && t->name != NULL; }

const char *ck_unsupported_type(const char *name) {
    if (!name) return NULL;
    static const struct { const char *prefix; const char *what; } table[] = {
        {"double", "double is not supported in Metal"},
        {"texture", "textures are not supported by enigma"},
        {"depth2d", "textures are not supported by enigma"},
        {"depthcube", "textures are not supported by enigma"},
        {"sampler", "samplers are not supported by enigma"},
        {"imageblock", "imageblocks are not supported by enigma"},
        {"acceleration_structure", "ray tracing is not supported by enigma"},
        {"intersector", "ray tracing is not supported by enigma"},
        {"intersection_function_table", "ray tracing is not supported by enigma"},
        {"visible_function_table", "function tables are not supported by enigma"},
        {"indirect_command_buffer", "indirect command buffers are not supported by enigma"},
        {"command_buffer", "indirect command buffers are not supported by enigma"},
        {"render_pipeline", "render pipelines are not supported by enigma"},
        {"mesh", "mesh shaders are not supported by enigma"},
        {"raster_order_group", "raster order groups are not supported by enigma"},
        {"array_ref", "array_ref is not supported by enigma"},
        {"long double", "long double is not supported in Metal"},
    };
    for (size_t i = 0; i < EN_COUNT(table); i++)
        if (strncmp(name, table[i].prefix, strlen(table[i].prefix)) == 0) return table[i].what;
    return NULL;
}

/* the template forms: vec<T,N>, packed_vec<T,N>, atomic<T>, simdgroup_matrix<T,8,8> */
ir_type *ck_template_builtin_type(checker *ck, const char *name, ir_type **type_args,
                                  const int64_t *value_args, int arg_count, en_loc loc) {
    ir_module *m = ck->m;
    if (en_streq(name, "vec") || en_streq(name, "packed_vec")) {
        /* vec<T, 1> is Apple's one-lane vector, which behaves as its scalar (MLX's attention
         * fragments of one row are vec<T, 1>); enigma makes it the scalar */
        if (arg_count == 2 && type_args[0] && !type_args[1] && ir_is_scalar(type_args[0]) && value_args[1] == 1)
            return type_args[0];
        if (arg_count != 2 || !type_args[0] || type_args[1] || !ir_is_scalar(type_args[0]) ||
            value_args[1] < 2 || value_args[1] > 4) {
            en_error(ck->diags, loc, "'%s' needs a scalar type and a length of 1, 2, 3 or 4", name);
            return NULL;
        }
        return ir_type_vec(m, type_args[0], (uint32_t)value_args[1], name[0] == 'p');
    }
    if (en_streq(name, "atomic")) {
        ir_type *e = arg_count == 1 ? type_args[0] : NULL;
        if (!e || !(e->kind == IR_T_I32 || e->kind == IR_T_U32 || e->kind == IR_T_BOOL ||
                    e->kind == IR_T_F32 || e->kind == IR_T_U64 || e->kind == IR_T_I64)) {
            en_error(ck->diags, loc, "'atomic<T>' needs T to be int, uint, bool, float or ulong");
            return NULL;
        }
        return ir_type_atomic(m, e);
    }
    if (en_streq(name, "simdgroup_matrix")) {
        ir_type *e = arg_count == 3 ? type_args[0] : NULL;
        if (e && !type_args[1] && !type_args[2] && value_args[1] == 8 && value_args[2] == 8 &&
            (ir_is_integer(e) || e->kind == IR_T_BOOL)) {
            /* named but not usable, as in Apple's headers: MLX's fragment classes, instantiated
             * for a mask's element type, typedef simdgroup_matrix<bool, 8, 8> and never make
             * one. An incomplete struct of that name: declaring one is the error. */
            const char *sname = en_fmt(ck->a, "simdgroup_matrix<%s, 8, 8>", ir_type_name(e, ck->a));
            for (int i = 0; i < m->structs.count; i++)
                if (en_streq(m->structs.items[i]->name, sname)) return m->structs.items[i];
            return ir_type_struct(m, sname);
        }
        if (!e || !(e->kind == IR_T_F32 || e->kind == IR_T_F16 || e->kind == IR_T_BF16) ||
            type_args[1] || type_args[2] || value_args[1] != 8 || value_args[2] != 8) {
            en_error(ck->diags, loc,
                     "'simdgroup_matrix' needs <float, 8, 8>, <half, 8, 8> or <bfloat, 8, 8>");
            return NULL;
        }
        return ir_type_matrix(m, e);
    }
    if (en_streq(name, "matrix")) {
        ir_type *e = arg_count == 3 ? type_args[0] : NULL;
        ir_type *t = e && (e->kind == IR_T_F32 || e->kind == IR_T_F16 || e->kind == IR_T_BF16) && !type_args[1] &&
                             !type_args[2]
                         ? ck_matrix_type(m, e, (int)value_args[1], (int)value_args[2])
                         : NULL;
        if (!t) en_error(ck->diags, loc, "'matrix' needs <float, half or bfloat, C, R> with C and R from 2 to 4");
        return t;
    }
    return NULL;
}

bool ck_is_template_builtin_type(const char *name) {
    return en_streq(name, "vec") || en_streq(name, "packed_vec") || en_streq(name, "atomic") ||
           en_streq(name, "simdgroup_matrix") || en_streq(name, "matrix");
}

const char *ck_type_name(checker *ck, const ir_type *t) {
    if (ck_is_vote(t)) return "simd_vote";
    return ir_type_name(t, ck->a);
}

bool ck_is_arith(const ir_type *t) { return ir_is_scalar(t) || (t && t->kind == IR_T_VEC); }
