/* emit.c — kernel IR to readable C11 for the cpu backend.
 *
 * Needs: a verified module after inlining (no IR_S_CALL), as src/ir/ir.h describes.
 * Guarantees: C text that starts with the prelude (prelude.txt) and defines, for the i-th
 * kernel, enk_kernel_<i>(const enk_group *) which runs ONE threadgroup, plus the sizes
 * exec.c needs (see cpu.h).
 *
 * Execution model (DESIGN.md, MSL-NOTES.md). Each SIMD group of 32 lanes runs as one gang,
 * ISPC-style: every per-thread value is an array over the lanes (`float x[32]`), every
 * operation is a `for (int l = 0; l < 32; l++)` loop that gcc/clang vectorise, and control
 * flow narrows a 32-bit execution mask: an if runs each arm under mask & cond (skipping an
 * empty arm), a loop runs until no lane remains in it, break/continue/return remove lanes.
 *
 * The threadgroup is a loop over its SIMD groups inside each barrier-free REGION. A
 * statement that contains a threadgroup_barrier runs at THREADGROUP LEVEL instead: its
 * condition is computed per thread and the per-SIMD-group masks in `_act[]` narrow exactly
 * as gang masks do (so a uniform condition takes one arm and a divergent one cannot hang),
 * and its barrier-free parts are regions again. `_act[sg]` holds, between regions, which
 * threads are still running here: lanes beyond the group's real size are never in it and a
 * thread that returns leaves it for good, so it no longer takes part in barriers.
 *
 * Where values live. A variable used in one region only is a gang array on the stack of
 * that region; one used in several regions lives per thread in the context block
 * (`_ctx->x[1024]`, a per-worker scratch area) and each region points at its SIMD group's
 * slice; uniform values (unassigned buffer parameters, group-wide attributes) are scalars.
 *
 * Choke points for checked mode: emit_access() emits every load and store of memory,
 * emit_barrier() every threadgroup barrier. Loads of memory are hoisted out of expressions
 * into temporaries so that masked-off lanes never touch memory; integer division goes
 * through helpers that never trap. A full mask with consecutive addresses takes a plain
 * vector loop.
 *
 * Fast paths (unchecked code, see "lane-affine addresses"): an address whose index is
 * base[l / 16] + step * (l % 16) by construction (position attributes, uniform values,
 * locals declared from them, per-lane index variables tested at run time) is accessed
 * under a full mask with one or two vector moves or broadcasts and no per-lane address
 * array; a grid-stride loop over such an index runs a per-gang fast loop (gang_loop); a
 * per-lane assignment under a full mask is a plain vector loop; a streaming loop that no
 * lane leaves early is a region of its own whose SIMD groups step in turn
 * (emit_interleaved_loop), so a threadgroup reads contiguous runs. Each keeps the general
 * code as its fallback. */
#include "check_rt.h"
#include "cpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef enum var_kind {
    VK_UNUSED,
    VK_UNIFORM,     /* one scalar C variable for the whole threadgroup */
    VK_GANG,        /* T x[32] on the stack of its one region */
    VK_CONTEXT,     /* per thread in the context block; regions point at their slice */
    VK_LANE_ATTR,   /* a per-thread position attribute, recomputed in each region */
    VK_THREADGROUP, /* a `threadgroup` variable in the threadgroup block */
    VK_GLOBAL,      /* a program-scope constant */
    VK_SCALAR,      /* uniform (the uniformity pass says so), one region: one C scalar */
    VK_SCALAR_SG,   /* uniform, several regions: one value per SIMD group, `x[_sg]` */
} var_kind;

typedef struct var_info {
    var_kind kind;
    int region;      /* the first region that uses it, -1 if none */
    bool multi;      /* used in more than one region */
    const char *cname;
} var_info;

typedef struct type_entry {
    const ir_type *type;
    const char *cname;
} type_entry;

typedef struct loop_entry {
    const ir_stmt *loop;
    bool tg_level;
    int id;
} loop_entry;

typedef struct memo_entry {
    const ir_expr *expr;
    const char *temp;
} memo_entry;

typedef struct emitter {
    const ir_module *m;
    en_arena arena;
    en_buf types;   /* type definitions, in dependency order */
    en_buf *out;    /* where statements go */
    en_buf *err;
    bool failed;
    EN_VEC(type_entry) type_names;
    var_info *globals;
    /* the kernel being emitted */
    const ir_func *f;
    var_info *vars;
    int var_count;
    int indent;
    int counter;
    int prefetch_sites; /* stride trackers for loads in loops (see emit_access) */
    bool interleaving;  /* inside emit_interleaved_loop's phase: a tracker per SIMD group */
    int region_next;
    const char *mask;  /* the C variable holding the current gang's execution mask */
    bool fast_paths;   /* lane-affine accesses and streaming loops */
    bool checked;      /* checked mode: an access the hook instruments keeps the general path */
    const ir_expr **inits; /* per local variable id: its declaration's value (lane_form) */
    const char *lane;  /* the lane index attr_value() uses: "(uint32_t)l", or a half's first */
    const ir_var *stream_var; /* inside a streaming loop (gang_loop): this index is */
    const char *stream_base;  /* stream_base + l in every lane */
    const ir_var *implicit_var; /* in an interleaved phase the loop index is not stored: */
    const char *implicit_base;  /* its lanes read implicit_base + l (var_lvalue) */
    EN_VEC(loop_entry) loops;
    EN_VEC(memo_entry) memos;
    EN_VEC(const ir_stmt *) interleaved; /* streaming loops run SIMD groups interleaved */
    /* checked mode (check_rt.h): hook calls at the choke points, a site table per kernel
     * and the kernel's object table; never set for an unchecked build */
    int kernel_index;
    en_buf sites;
    int site_count;
    int *object_of_var;   /* var id -> object index, -1 */
    int *object_of_global;
    const char *store_values; /* the store being emitted: its 32 values, for the hook */
} emitter;

static const char *S(emitter *em, const char *fmt, ...) EN_PRINTF(2, 3);
static const char *S(emitter *em, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    en_buf b = {0};
    en_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    const char *r = en_strdup(&em->arena, b.data ? b.data : "");
    en_buf_free(&b);
    return r;
}

static void fail(emitter *em, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
static void fail(emitter *em, en_loc loc, const char *fmt, ...) {
    if (em->failed) return;
    em->failed = true;
    va_list ap;
    va_start(ap, fmt);
    en_buf_puts(em->err, "internal error: cpu backend: ");
    en_buf_vprintf(em->err, fmt, ap);
    if (loc.line > 0) en_buf_printf(em->err, " (at line %d)", loc.line);
    va_end(ap);
}

static void line(emitter *em, const char *fmt, ...) EN_PRINTF(2, 3);
static void line(emitter *em, const char *fmt, ...) {
    for (int i = 0; i < em->indent; i++) en_buf_puts(em->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    en_buf_vprintf(em->out, fmt, ap);
    va_end(ap);
    en_buf_putc(em->out, '\n');
}
#define OPEN(...) (line(em, __VA_ARGS__), em->indent++)
#define CLOSE() (em->indent--, line(em, "}"))

static int fresh(emitter *em) { return em->counter++; }

/* a comment naming the source line, with its text, so the C reads beside the .metal */
static const char *source_note(emitter *em, en_loc loc) {
    if (loc.line <= 0 || !em->m->sources) return S(em, "line ?");
    int len = 0;
    const char *text = en_source_line(em->m->sources, loc.file, loc.line, &len);
    if (!text) return S(em, "line %d", loc.line);
    while (len > 0 && (*text == ' ' || *text == '\t')) text++, len--;
    if (len > 70) len = 70;
    char clean[80];
    int n = 0;
    for (int i = 0; i < len; i++) {
        char c = text[i];
        if (c == '*' && i + 1 < len && text[i + 1] == '/') c = '+';
        if ((unsigned char)c < 32) c = ' ';
        clean[n++] = c;
    }
    clean[n] = 0;
    return S(em, "line %d: %s", loc.line, clean);
}

/* ---- types -------------------------------------------------------------------------- */
static const char *scalar_ctype(ir_type_kind k) {
    switch (k) {
    case IR_T_VOID: return "void";
    case IR_T_BOOL: return "bool";
    case IR_T_I8: return "int8_t";
    case IR_T_U8: return "uint8_t";
    case IR_T_I16: return "int16_t";
    case IR_T_U16: return "uint16_t";
    case IR_T_I32: return "int32_t";
    case IR_T_U32: return "uint32_t";
    case IR_T_I64: return "int64_t";
    case IR_T_U64: return "uint64_t";
    case IR_T_F16: return "enk_half";
    case IR_T_BF16: return "enk_bfloat";
    case IR_T_F32: return "float";
    default: return "void";
    }
}

/* helper-name suffix of an integer type, "f32" for floats (computed in float) */
static const char *suffix_of(const ir_type *t) {
    switch (t->kind) {
    case IR_T_I8: return "i8";
    case IR_T_U8: return "u8";
    case IR_T_I16: return "i16";
    case IR_T_U16: return "u16";
    case IR_T_I32: return "i32";
    case IR_T_U32: return "u32";
    case IR_T_I64: return "i64";
    case IR_T_U64: return "u64";
    default: return "f32";
    }
}

static int int_bits(const ir_type *t) { return (int)t->size * 8; }
static const char *wide_unsigned(const ir_type *t) { return t->size == 8 ? "uint64_t" : "uint32_t"; }
static bool is_half_like(const ir_type *t) { return t->kind == IR_T_F16 || t->kind == IR_T_BF16; }

static const char *ident(emitter *em, const char *name) {
    char *s = en_strdup(&em->arena, name ? name : "v");
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            *p = '_';
    return s;
}

static const char *ctype(emitter *em, const ir_type *t);

static const char *define_type(emitter *em, const ir_type *t) {
    /* dependencies first, so that names and definitions come in order */
    if (t->elem) ctype(em, t->elem);
    for (int i = 0; t->kind == IR_T_STRUCT && i < t->field_count; i++) ctype(em, t->fields[i].type);
    for (int i = 0; i < em->type_names.count; i++)
        if (em->type_names.items[i].type == t) return em->type_names.items[i].cname;
    int index = em->type_names.count;
    switch (t->kind) {
    case IR_T_VEC: {
        const char *elem = ctype(em, t->elem);
        const char *name = S(em, "enk_%s%s%u", t->packed ? "packed_" : "",
                             ir_type_name(t->elem, &em->arena), t->count);
        en_buf_printf(&em->types, "typedef struct { _Alignas(%u) %s v[%u]; } %s;\n", t->align, elem,
                      t->count, name);
        return name;
    }
    case IR_T_ARRAY: {
        const char *elem = ctype(em, t->elem);
        const char *name = S(em, "enk_array%d", index);
        en_buf_printf(&em->types, "typedef struct { %s a[%u]; } %s; /* %s */\n", elem,
                      t->count ? t->count : 1, name, ir_type_name(t, &em->arena));
        return name;
    }
    case IR_T_STRUCT: {
        const char *name = S(em, "struct enk_%s_%d", ident(em, t->name), index);
        en_buf_printf(&em->types, "%s { /* struct %s */\n", name, t->name);
        for (int i = 0; i < t->field_count; i++)
            en_buf_printf(&em->types, "    %s %s;\n", ctype(em, t->fields[i].type),
                          ident(em, t->fields[i].name));
        if (t->field_count == 0) en_buf_puts(&em->types, "    char _empty;\n");
        en_buf_puts(&em->types, "};\n");
        for (int i = 0; i < t->field_count; i++)
            en_buf_printf(&em->types, "_Static_assert(offsetof(%s, %s) == %u, \"MSL layout\");\n",
                          name, ident(em, t->fields[i].name), t->fields[i].offset);
        return name;
    }
    case IR_T_SIMD_MATRIX: {
        const char *elem = ctype(em, t->elem);
        const char *name = S(em, "enk_matrix_%s", ir_type_name(t->elem, &em->arena));
        en_buf_printf(&em->types,
                      "typedef struct { %s e[2]; } %s; /* this lane's 2 of the 64 elements */\n",
                      elem, name);
        return name;
    }
    default: return scalar_ctype(t->kind);
    }
}

/* the C storage type: memory layout is MSL's, half and bfloat are their bits */
static const char *ctype(emitter *em, const ir_type *t) {
    if (!t) return "void";
    if (t->kind == IR_T_PTR) return S(em, "%s *", ctype(em, t->elem));
    if (t->kind == IR_T_ATOMIC) return ctype(em, t->elem);
    if (ir_is_scalar(t) || t->kind == IR_T_VOID) return scalar_ctype(t->kind);
    for (int i = 0; i < em->type_names.count; i++)
        if (em->type_names.items[i].type == t) return em->type_names.items[i].cname;
    const char *name = define_type(em, t);
    EN_PUSH(&em->arena, em->type_names, ((type_entry){t, name}));
    return name;
}

/* the C type a scalar is computed in */
static const char *compute_ctype(const ir_type *t) {
    return is_half_like(t) ? "float" : scalar_ctype(t->kind);
}

/* storage bits -> computed value, and back */
static const char *from_storage(emitter *em, const ir_type *t, const char *x) {
    if (t->kind == IR_T_F16) return S(em, "enk_h2f(%s)", x);
    if (t->kind == IR_T_BF16) return S(em, "enk_bf2f(%s)", x);
    return x;
}
static const char *to_storage(emitter *em, const ir_type *t, const char *x) {
    if (t->kind == IR_T_F16) return S(em, "enk_f2h(%s)", x);
    if (t->kind == IR_T_BF16) return S(em, "enk_f2bf(%s)", x);
    return x;
}
/* a computed half/bfloat result rounded to its type (compute in float, round each result) */
static const char *rounded(emitter *em, const ir_type *t, const char *x) {
    if (t->kind == IR_T_F16) return S(em, "enk_rh(%s)", x);
    if (t->kind == IR_T_BF16) return S(em, "enk_rbf(%s)", x);
    return x;
}

/* ---- variables ---------------------------------------------------------------------- */
static var_info *info_of(emitter *em, const ir_var *v) {
    if (v->storage == IR_VAR_CONSTANT) return &em->globals[v->id];
    if (v->id < 0 || v->id >= em->var_count) return &em->vars[0];
    return &em->vars[v->id];
}

static bool attr_is_per_lane(ir_attr a) {
    switch (a) {
    case IR_ATTR_THREAD_POSITION_IN_GRID:
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP:
    case IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_QUADGROUP:
    case IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP:
        return true;
    default:
        return false;
    }
}

/* the value of component d of an attribute, as uint32_t; per-lane ones use _sg and l */
static const char *attr_value(emitter *em, ir_attr a, int d) {
    const char *lane = em->lane ? em->lane : "(uint32_t)l";
    const char *li = S(em, "(_sg * 32u + %s)", lane);
    /* in a 1-D threadgroup the position is the index; otherwise a table made once per
     * threadgroup (no division per lane per region) */
    const char *pos[3] = {
        S(em, "(_one_d ? %s : _lpos[0][%s])", li, li),
        S(em, "(_one_d ? 0u : _lpos[1][%s])", li),
        S(em, "(_one_d ? 0u : _lpos[2][%s])", li),
    };
    switch (a) {
    case IR_ATTR_THREAD_POSITION_IN_GRID:
        return S(em, "(g->position[%d] * g->group_size[%d] + %s)", d, d, pos[d]);
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: return pos[d];
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP: return li;
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP: return lane;
    case IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP: return "_sg";
    case IR_ATTR_THREAD_INDEX_IN_QUADGROUP: return "((uint32_t)l & 3u)";
    case IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP: return S(em, "(%s / 4u)", li);
    case IR_ATTR_THREADS_PER_GRID: return S(em, "g->grid[%d]", d);
    case IR_ATTR_THREADS_PER_THREADGROUP: return S(em, "g->size[%d]", d);
    case IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP: return S(em, "g->group_size[%d]", d);
    case IR_ATTR_THREADGROUP_POSITION_IN_GRID: return S(em, "g->position[%d]", d);
    case IR_ATTR_THREADGROUPS_PER_GRID: return S(em, "g->groups[%d]", d);
    case IR_ATTR_THREADS_PER_SIMDGROUP:
    case IR_ATTR_THREAD_EXECUTION_WIDTH: return "32u";
    case IR_ATTR_SIMDGROUPS_PER_THREADGROUP: return "((_n + 31u) / 32u)";
    case IR_ATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP: return "((_dispatch_n + 31u) / 32u)";
    case IR_ATTR_QUADGROUPS_PER_THREADGROUP: return "((_n + 3u) / 4u)";
    case IR_ATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP: return "((_dispatch_n + 3u) / 4u)";
    default: return "0u";
    }
}

/* `x = <attribute>` for one lane (or the uniform scalar): every component */
static const char *attr_init(emitter *em, const ir_var *v, const char *target) {
    const ir_type *t = v->type;
    if (t->kind == IR_T_VEC) {
        en_buf b = {0};
        for (uint32_t c = 0; c < t->count; c++)
            en_buf_printf(&b, "%s.v[%u] = (%s)%s; ", target, c, scalar_ctype(t->elem->kind),
                          attr_value(em, v->attr, (int)c));
        const char *r = S(em, "%s", b.data ? b.data : "");
        en_buf_free(&b);
        return r;
    }
    return S(em, "%s = (%s)%s;", target, scalar_ctype(t->kind), attr_value(em, v->attr, 0));
}

/* ---- which statements need threadgroup level ---------------------------------------- */
static bool contains_barrier(const ir_stmt *s) {
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (contains_barrier(s->stmts[i])) return true;
        return false;
    case IR_S_IF: return contains_barrier(s->then_s) || contains_barrier(s->else_s);
    case IR_S_LOOP: return contains_barrier(s->body) || contains_barrier(s->latch);
    case IR_S_INTRINSIC: return s->intrinsic == IR_I_BARRIER_THREADGROUP;
    default: return false;
    }
}

typedef void (*var_visit)(emitter *em, const ir_var *v, int region);

static void walk_expr_vars(emitter *em, const ir_expr *e, var_visit visit, int region) {
    if (!e) return;
    if (e->kind == IR_E_VAR && e->var) visit(em, e->var, region);
    for (int i = 0; i < e->arg_count; i++) walk_expr_vars(em, e->args[i], visit, region);
}

static void walk_stmt_vars(emitter *em, const ir_stmt *s, var_visit visit, int region) {
    if (!s) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) walk_stmt_vars(em, s->stmts[i], visit, region);
        break;
    case IR_S_DECL:
        visit(em, s->var, region);
        walk_expr_vars(em, s->value, visit, region);
        break;
    case IR_S_ASSIGN:
        walk_expr_vars(em, s->place, visit, region);
        walk_expr_vars(em, s->value, visit, region);
        break;
    case IR_S_IF:
        walk_expr_vars(em, s->cond, visit, region);
        walk_stmt_vars(em, s->then_s, visit, region);
        walk_stmt_vars(em, s->else_s, visit, region);
        break;
    case IR_S_LOOP:
        walk_stmt_vars(em, s->body, visit, region);
        walk_stmt_vars(em, s->latch, visit, region);
        break;
    case IR_S_RETURN: walk_expr_vars(em, s->value, visit, region); break;
    case IR_S_INTRINSIC:
    case IR_S_CALL:
        if (s->result) visit(em, s->result, region);
        for (int i = 0; i < s->arg_count; i++) walk_expr_vars(em, s->args[i], visit, region);
        break;
    default: break;
    }
}

static void note_use(emitter *em, const ir_var *v, int region) {
    var_info *vi = info_of(em, v);
    if (vi->region < 0) vi->region = region;
    else if (vi->region != region) vi->multi = true;
}

/* The threadgroup-level walk, shared by analysis (visit != NULL) and emission: a list of
 * statements becomes runs of barrier-free statements (regions) and barrier statements. */
typedef struct stmt_list {
    ir_stmt *const *items; /* a block's statements, or NULL: then `single` */
    int count;
    ir_stmt *single;
} stmt_list;

static stmt_list list_of(ir_stmt *s) {
    stmt_list l = {0};
    if (!s) return l;
    if (s->kind == IR_S_BLOCK) {
        l.items = s->stmts;
        l.count = s->stmt_count;
    } else {
        l.single = s;
        l.count = 1;
    }
    return l;
}
static ir_stmt *list_at(stmt_list l, int i) { return l.items ? l.items[i] : l.single; }

static bool is_interleaved(const emitter *em, const ir_stmt *s) {
    for (int i = 0; i < em->interleaved.count; i++)
        if (em->interleaved.items[i] == s) return true;
    return false;
}

/* Where the barrier-free region that starts at list[start] ends: before the next statement
 * that contains a barrier. A loop chosen to run interleaved (interleavable) is a region
 * of its own: the statements before it finish for every SIMD group first, which any
 * schedule of a barrier-free stretch allows. Analysis and emission both cut here, so a
 * value that crosses the cut lives per thread. */
static int region_end(const emitter *em, stmt_list list, int start) {
    if (is_interleaved(em, list_at(list, start))) return start + 1;
    int i = start;
    while (i < list.count && !contains_barrier(list_at(list, i)) && !is_interleaved(em, list_at(list, i))) i++;
    return i;
}

static void analyse_tg_list(emitter *em, stmt_list list);

static void analyse_tg_stmt(emitter *em, ir_stmt *s) {
    switch (s->kind) {
    case IR_S_BLOCK: analyse_tg_list(em, list_of(s)); break;
    case IR_S_IF: {
        int cond_region = em->region_next++;
        walk_expr_vars(em, s->cond, note_use, cond_region);
        analyse_tg_list(em, list_of(s->then_s));
        analyse_tg_list(em, list_of(s->else_s));
        break;
    }
    case IR_S_LOOP:
        analyse_tg_list(em, list_of(s->body));
        analyse_tg_list(em, list_of(s->latch));
        break;
    default: break; /* the barrier itself */
    }
}

static void analyse_tg_list(emitter *em, stmt_list list) {
    int i = 0;
    while (i < list.count) {
        if (contains_barrier(list_at(list, i))) {
            analyse_tg_stmt(em, list_at(list, i++));
            continue;
        }
        int region = em->region_next++, end = region_end(em, list, i);
        for (; i < end; i++) walk_stmt_vars(em, list_at(list, i), note_use, region);
    }
}

/* ---- constants ---------------------------------------------------------------------- */
static const char *float_literal(emitter *em, double v, bool single) {
    if (isnan(v)) return "NAN";
    if (isinf(v)) return v < 0 ? "(-INFINITY)" : "INFINITY";
    return S(em, "%a%s", v, single ? "f" : "");
}

static const char *const_literal(emitter *em, const ir_type *t, ir_const c) {
    switch (t->kind) {
    case IR_T_BOOL: return c.u ? "true" : "false";
    case IR_T_I8: case IR_T_I16: case IR_T_I32: case IR_T_I64:
        if (c.i == INT64_MIN) return S(em, "((%s)INT64_MIN)", scalar_ctype(t->kind));
        return S(em, "((%s)%lldLL)", scalar_ctype(t->kind), (long long)c.i);
    case IR_T_U8: case IR_T_U16: case IR_T_U32: case IR_T_U64:
        return S(em, "((%s)%lluULL)", scalar_ctype(t->kind), (unsigned long long)c.u);
    case IR_T_F16: case IR_T_BF16: case IR_T_F32: return float_literal(em, c.f, true);
    default: return "0";
    }
}

/* host-side float -> half/bfloat bits, round to nearest even, for constant initializers */
static uint16_t host_f2h(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    uint32_t sign = (bits >> 16) & 0x8000u;
    float a = fabsf(x);
    if (isnan(x)) return (uint16_t)(sign | 0x7e00u);
    if (a >= 65520.0f) return (uint16_t)(sign | 0x7c00u);
    if (a < 0x1p-14f) { /* subnormal: units of 2^-24 */
        float q = rintf(a * 0x1p24f);
        return (uint16_t)(sign | (uint32_t)q);
    }
    int e;
    float m = frexpf(a, &e);            /* a = m * 2^e, m in [0.5, 1) */
    float q = rintf(m * 2048.0f);       /* 11 significant bits */
    if (q >= 2048.0f) { q /= 2; e++; }
    uint32_t exp = (uint32_t)(e - 1 + 15);
    if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | exp << 10 | ((uint32_t)q & 0x3ffu));
}
static uint16_t host_f2bf(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40u);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

/* a brace initializer (constant expression) for a program-scope constant */
static const char *const_init(emitter *em, const ir_expr *e) {
    if (!e) return "{0}";
    switch (e->kind) {
    case IR_E_CONST:
        if (e->type->kind == IR_T_F16) return S(em, "0x%04x", host_f2h((float)e->c.f));
        if (e->type->kind == IR_T_BF16) return S(em, "0x%04x", host_f2bf((float)e->c.f));
        return const_literal(em, e->type, e->c);
    case IR_E_CONVERT:
    case IR_E_BITCAST:
        if (e->args[0]->kind == IR_E_CONST) {
            ir_expr c = *e->args[0];
            c.type = e->type;
            if (ir_is_float(e->type) && !ir_is_float(e->args[0]->type))
                c.c.f = ir_is_signed(e->args[0]->type) ? (double)e->args[0]->c.i : (double)e->args[0]->c.u;
            return const_init(em, &c);
        }
        break;
    case IR_E_SPLAT:
    case IR_E_VECTOR:
    case IR_E_AGGREGATE: {
        en_buf b = {0};
        bool wrap = e->type->kind == IR_T_VEC || e->type->kind == IR_T_ARRAY;
        en_buf_puts(&b, wrap ? "{{" : "{");
        int n = e->kind == IR_E_SPLAT ? (int)e->type->count : e->arg_count;
        for (int i = 0; i < n; i++)
            en_buf_printf(&b, "%s%s", i ? ", " : "",
                          const_init(em, e->args[e->kind == IR_E_SPLAT ? 0 : i]));
        en_buf_puts(&b, wrap ? "}}" : "}");
        const char *r = S(em, "%s", b.data);
        en_buf_free(&b);
        return r;
    }
    default: break;
    }
    fail(em, e->loc, "a program-scope constant initializer that is not constant");
    return "{0}";
}

/* ---- expressions -------------------------------------------------------------------- *
 * ex(e, c) is a C expression, for lane `l`, of component c of e (c = -1: e is a scalar or
 * a pointer) in its computed type. Loads and other whole values it needs are hoisted
 * into temporaries emitted before the statement that uses them. */
static const char *ex(emitter *em, const ir_expr *e, int comp);
static const char *whole(emitter *em, const ir_expr *e);
static const char *lvalue(emitter *em, const ir_expr *e);
static const char *materialize(emitter *em, const ir_expr *e);

static const char *memo_find(emitter *em, const ir_expr *e) {
    for (int i = 0; i < em->memos.count; i++)
        if (em->memos.items[i].expr == e) return em->memos.items[i].temp;
    return NULL;
}
static void memo_add(emitter *em, const ir_expr *e, const char *temp) {
    EN_PUSH(&em->arena, em->memos, ((memo_entry){e, temp}));
}

static int comp_of(const ir_expr *operand, int comp) {
    return operand->type->kind == IR_T_VEC ? comp : -1;
}

/* does reading this place touch memory that a masked-off lane must not touch? */
static bool needs_access(const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR: return e->var->storage == IR_VAR_THREADGROUP;
    case IR_E_DEREF: return true;
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) return true;
        if (e->args[1]->kind != IR_E_CONST) return true;
        return ir_is_place(e->args[0]) ? needs_access(e->args[0]) : true;
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return ir_is_place(e->args[0]) ? needs_access(e->args[0]) : true;
    default: return false;
    }
}

static const char *var_lvalue(emitter *em, const ir_var *v) {
    var_info *vi = info_of(em, v);
    if (v == em->implicit_var) { /* read only: the phase never writes it (emit_interleaved_loop) */
        const char *T = scalar_ctype(v->type->kind);
        return S(em, "((%s)(%s + (%s)l))", T, em->implicit_base, T);
    }
    switch (vi->kind) {
    case VK_UNIFORM:
    case VK_GLOBAL: return vi->cname;
    case VK_THREADGROUP: return S(em, "_tg->%s", vi->cname);
    case VK_SCALAR: return vi->cname;
    case VK_SCALAR_SG: return S(em, "%s[_sg]", vi->cname);
    default: return S(em, "%s[l]", vi->cname);
    }
}

/* the C lvalue of a place for lane l (sub-expressions may hoist loads) */
static const char *lvalue(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR: return var_lvalue(em, e->var);
    case IR_E_DEREF: return S(em, "(*%s)", ex(em, e->args[0], -1));
    case IR_E_FIELD: {
        const ir_type *st = e->args[0]->type;
        const char *base = ir_is_place(e->args[0]) ? lvalue(em, e->args[0])
                                                   : S(em, "%s[l]", materialize(em, e->args[0]));
        return S(em, "%s.%s", base, ident(em, st->fields[e->field].name));
    }
    case IR_E_INDEX: {
        const ir_expr *base = e->args[0];
        const char *index = ex(em, e->args[1], -1);
        if (base->type->kind == IR_T_PTR) return S(em, "%s[%s]", ex(em, base, -1), index);
        const char *b = ir_is_place(base) ? lvalue(em, base) : S(em, "%s[l]", materialize(em, base));
        return S(em, "%s.%s[%s]", b, base->type->kind == IR_T_VEC ? "v" : "a", index);
    }
    case IR_E_SWIZZLE: {
        const char *b = ir_is_place(e->args[0]) ? lvalue(em, e->args[0])
                                                : S(em, "%s[l]", materialize(em, e->args[0]));
        return S(em, "%s.v[%d]", b, e->swizzle[0]);
    }
    default:
        return S(em, "%s[l]", materialize(em, e));
    }
}

/* Checked mode's hook for one access, given the variable holding its 32 lane addresses
 * (uintptr_t[32]) and the kind of access: returns the C expression of the lanes that may
 * touch memory. Unchecked code lets every active lane through. The checked-mode issue
 * fills this in (src/cpu/check_rt.h: the access hook); every load, store and atomic of
 * memory passes here, so nothing else needs instrumenting. */
/* ---- checked mode: sites and objects ---------------------------------------------------- */
/* a C string literal of text */
static const char *c_string(emitter *em, const char *text) {
    en_buf b = {0};
    en_buf_putc(&b, '"');
    for (const char *p = text ? text : "?"; *p; p++) {
        if (*p == '"' || *p == '\\') en_buf_putc(&b, '\\');
        en_buf_putc(&b, (unsigned char)*p < 32 ? ' ' : *p);
    }
    en_buf_putc(&b, '"');
    const char *r = S(em, "%s", b.data);
    en_buf_free(&b);
    return r;
}

/* a new entry of this kernel's site table; returns the C expression of its address */
static const char *check_site(emitter *em, en_loc loc, int op, int space, int object, const char *size,
                              const char *what) {
    en_buf_printf(&em->sites, "    {%d, %d, %d, %d, %d, %d, %s, %s},\n", loc.file, loc.line, loc.col, op, space, object,
                  size ? size : "0", c_string(em, what));
    return S(em, "&enk_sites_%d[%d]", em->kernel_index, em->site_count++);
}

/* the space of the memory a place reads or writes */
static ir_space place_space(const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        return e->var->storage == IR_VAR_THREADGROUP ? IR_SPACE_THREADGROUP
               : e->var->storage == IR_VAR_CONSTANT  ? IR_SPACE_CONSTANT
                                                     : IR_SPACE_THREAD;
    case IR_E_DEREF: return e->args[0]->type->kind == IR_T_PTR ? e->args[0]->type->space : IR_SPACE_THREAD;
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) return e->args[0]->type->space;
        return ir_is_place(e->args[0]) ? place_space(e->args[0]) : IR_SPACE_THREAD;
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return ir_is_place(e->args[0]) ? place_space(e->args[0]) : IR_SPACE_THREAD;
    default: return IR_SPACE_THREAD;
    }
}

/* the source name of the variable a place or pointer starts from */
static const char *root_name(const ir_expr *e) {
    while (e) {
        if (e->kind == IR_E_VAR) return e->var->name;
        if (e->arg_count == 0) return NULL;
        e = e->args[0];
    }
    return NULL;
}

static int place_object(emitter *em, const ir_expr *e);

/* which object of the kernel a pointer value points into, when the code says so; -1 */
static int pointer_object(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        if (e->var->storage != IR_VAR_LOCAL || e->var->id < 0 || e->var->id >= em->var_count) return -1;
        return em->object_of_var[e->var->id]; /* -2 while pointer_sources has not decided */
    case IR_E_PTR_OFFSET:
    case IR_E_PTRCAST: return pointer_object(em, e->args[0]);
    case IR_E_ADDR: return place_object(em, e->args[0]);
    default: return -1;
    }
}

static int place_object(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        if (e->var->storage == IR_VAR_CONSTANT)
            return e->var->id >= 0 && e->var->id < em->m->next_global_id + 1 && em->object_of_global
                       ? em->object_of_global[e->var->id] : -1;
        if (e->var->storage == IR_VAR_THREADGROUP && e->var->id >= 0 && e->var->id < em->var_count)
            return em->object_of_var[e->var->id];
        return -1;
    case IR_E_DEREF: return pointer_object(em, e->args[0]);
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) return pointer_object(em, e->args[0]);
        return ir_is_place(e->args[0]) ? place_object(em, e->args[0]) : -1;
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return ir_is_place(e->args[0]) ? place_object(em, e->args[0]) : -1;
    default: return -1;
    }
}

/* Pointer variables (locals, and parameters the kernel reassigns) point into the object
 * that every value assigned to them points into, when they all agree: `device float *p =
 * data + k; p[i]` is judged against data. A fixed point over the kernel's assignments. */
static bool merge_pointer_source(emitter *em, const ir_var *v, const ir_expr *value) {
    if (!v || !value || v->type->kind != IR_T_PTR || v->storage != IR_VAR_LOCAL) return false;
    if (v->id < 0 || v->id >= em->var_count) return false;
    int *slot = &em->object_of_var[v->id], o = pointer_object(em, value);
    if (o == -2 || *slot == -1 || *slot == o) return false;
    *slot = *slot == -2 ? o : -1;
    return true;
}

static bool pointer_sources_in(emitter *em, const ir_stmt *s) {
    bool changed = false;
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) changed |= pointer_sources_in(em, s->stmts[i]);
        break;
    case IR_S_DECL: changed |= merge_pointer_source(em, s->var, s->value); break;
    case IR_S_ASSIGN:
        if (s->place->kind == IR_E_VAR) changed |= merge_pointer_source(em, s->place->var, s->value);
        break;
    case IR_S_IF:
        changed |= pointer_sources_in(em, s->then_s);
        changed |= pointer_sources_in(em, s->else_s);
        break;
    case IR_S_LOOP:
        changed |= pointer_sources_in(em, s->body);
        changed |= pointer_sources_in(em, s->latch);
        break;
    default: break;
    }
    return changed;
}

static void pointer_sources(emitter *em, const ir_func *f) {
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        if (v->type->kind == IR_T_PTR && v->id >= 0 && v->id < em->var_count && em->object_of_var[v->id] == -1)
            em->object_of_var[v->id] = -2;
    }
    for (int pass = 0; pass < 16 && pointer_sources_in(em, f->body); pass++) {}
    for (int i = 0; i < em->var_count; i++)
        if (em->object_of_var[i] == -2) em->object_of_var[i] = -1;
}

/* the site of a memory access to `place`, or NULL when it needs no check (thread memory) */
static const char *access_site(emitter *em, const ir_expr *place, int op, const char *ctype_name) {
    if (!em->checked || !place) return NULL;
    ir_space space = place_space(place);
    if (space == IR_SPACE_THREAD) return NULL;
    return check_site(em, place->loc, op, (int)space, place_object(em, place), S(em, "sizeof(%s)", ctype_name),
                      root_name(place));
}

/* Checked mode: `site` is the place accessed, or for atomics the pointer; a uniform load
 * has one address (addrs[1]), given to the hook for every lane; em->store_values are a
 * store's 32 values (NULL otherwise). */
typedef enum access_kind {
    ACCESS_LOAD, ACCESS_STORE, ACCESS_ATOMIC, ACCESS_ATOMIC_LOAD, ACCESS_ATOMIC_STORE, ACCESS_UNIFORM_LOAD
} access_kind;
static const char *access_lanes(emitter *em, const ir_expr *site, const ir_type *t, const char *addrs,
                                access_kind kind) {
    if (!em->checked) return em->mask;
    const char *values = kind == ACCESS_STORE ? em->store_values : NULL;
    bool atomic = kind == ACCESS_ATOMIC || kind == ACCESS_ATOMIC_LOAD || kind == ACCESS_ATOMIC_STORE;
    const char *where;
    if (atomic) {
        if (site->type->kind != IR_T_PTR || site->type->space == IR_SPACE_THREAD) return em->mask;
        where = check_site(em, site->loc,
                           kind == ACCESS_ATOMIC_LOAD ? CPU_CHECK_ATOMIC_LOAD
                           : kind == ACCESS_ATOMIC_STORE ? CPU_CHECK_ATOMIC_STORE : CPU_CHECK_ATOMIC_RMW,
                           (int)site->type->space, pointer_object(em, site), S(em, "sizeof(%s)", ctype(em, t)),
                           root_name(site));
    } else {
        where = access_site(em, site, kind == ACCESS_STORE ? CPU_CHECK_STORE : CPU_CHECK_LOAD, ctype(em, t));
        if (!where) return em->mask;
    }
    int id = fresh(em);
    if (kind == ACCESS_UNIFORM_LOAD) { /* every active lane reads the one address */
        line(em, "uintptr_t _u%d[32];", id);
        line(em, "for (int l = 0; l < 32; l++) _u%d[l] = %s[0];", id, addrs);
        addrs = S(em, "_u%d", id);
    }
    line(em, "uint32_t _k%d = _cg->api->access(_cg->state, %s, _sg, %s, %s, %s);", id, where, em->mask, addrs,
         values ? values : "NULL");
    return S(em, "_k%d", id);
}

/* ---- lane-affine addresses ----------------------------------------------------------- *
 * Where a gang's threads lie in its threadgroup: when the group is 1-D or its width is a
 * multiple of 16 (`_aff`, once per threadgroup), each half of the gang (lanes 0-15 and
 * 16-31) lies within one row, so thread_position_in_threadgroup.x is its value at the
 * half's first lane plus l % 16, and .y and .z are the same across the half. lane_form()
 * recognises integer expressions built from such attributes and uniform values with + - *
 * << and casts: value(l) = base[l / 16] + step * (l % 16), with base[] uniform C values
 * computed in the expression's own type (so they wrap exactly as the per-lane code does)
 * and step a compile-time constant. A local declared once from such values (`uint row =
 * pos.y;`) is replaced by its declaration's value. An access whose address has that form
 * and runs under a full mask needs no per-lane address array: step 1 is one or two vector
 * moves, step 0 (loads) one or two broadcasts. Off in checked mode. */
typedef struct lane_form {
    bool ok;
    const char *base[2]; /* the value at lanes 0 and 16 */
    int64_t step;
    const char *guard;   /* run-time conditions ("&& ..."), from per-lane index variables */
} lane_form;

typedef struct addr_form {
    bool ok;
    const char *ptr[2];  /* the address at lanes 0 and 16 */
    int64_t step;        /* in elements of the accessed type */
    const char *guard;   /* C conditions (each "&& ...") that no lane's index wraps */
    bool device;         /* device or constant memory: worth a software prefetch in loops */
} addr_form;

static bool lane_invariant(emitter *em, const ir_expr *e);
static const char *binary_expr(emitter *em, ir_op op, const ir_type *t, const char *a, const char *b);
static const char *convert_expr(emitter *em, const ir_type *to, const ir_type *from, const char *a);

static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
/* does this C text read the lane variable `l`? (then it is not one value per gang) */
static bool mentions_lane(const char *c) {
    for (const char *p = c; *p; p++)
        if (*p == 'l' && (p == c || !is_ident_char(p[-1])) && !is_ident_char(p[1])) return true;
    return false;
}

static bool form_type_ok(const ir_type *t) {
    t = ir_scalar_of(t);
    return ir_is_integer(t) && (t->size == 4 || t->size == 8);
}

/* can a local's declared value be computed again anywhere (no memory, nothing assigned)? */
static bool reevaluable(emitter *em, const ir_expr *e, int depth) {
    if (depth > 6) return false;
    switch (e->kind) {
    case IR_E_CONST: return true;
    case IR_E_VAR: {
        const ir_var *v = e->var;
        if (v->storage != IR_VAR_LOCAL || v->is_assigned || v->address_taken) return false;
        var_kind k = info_of(em, v)->kind;
        if (k == VK_UNIFORM || k == VK_LANE_ATTR) return true;
        const ir_expr *init = v->id >= 0 && v->id < em->var_count ? em->inits[v->id] : NULL;
        return init && reevaluable(em, init, depth + 1);
    }
    case IR_E_SWIZZLE: case IR_E_BINARY: case IR_E_CONVERT: case IR_E_VECTOR: case IR_E_SPLAT:
        for (int i = 0; i < e->arg_count; i++)
            if (!reevaluable(em, e->args[i], depth + 1)) return false;
        return true;
    default: return false;
    }
}

static const lane_form no_form;

/* both sets of run-time conditions, each once */
static const char *join_guards(emitter *em, const char *a, const char *b) {
    if (!*b || strstr(a, b)) return a;
    if (!*a || strstr(b, a)) return b;
    return S(em, "%s%s", a, b);
}

static lane_form attr_form(emitter *em, const ir_var *v, int d) {
    int64_t step;
    switch (v->attr) {
    case IR_ATTR_THREAD_POSITION_IN_GRID:
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: step = d == 0; break;
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP: step = 1; break;
    default: return no_form;
    }
    /* valid while each half of the gang lies in one row of the group */
    lane_form f = {true, {NULL, NULL}, step, " && _aff"};
    for (int h = 0; h < 2; h++) {
        em->lane = h ? "16u" : "0u";
        f.base[h] = S(em, "((%s)%s)", scalar_ctype(ir_scalar_of(v->type)->kind), attr_value(em, v->attr, d));
        em->lane = NULL;
    }
    return f;
}

static lane_form lane_form_of(emitter *em, const ir_expr *e, int comp, int depth) {
    if (depth > 12 || !form_type_ok(e->type)) return no_form;
    const ir_type *t = ir_scalar_of(e->type);
    if (lane_invariant(em, e)) {
        const char *c = ex(em, e, comp);
        if (mentions_lane(c)) return no_form;
        return (lane_form){true, {c, c}, 0, ""};
    }
    switch (e->kind) {
    case IR_E_VAR: {
        const ir_var *v = e->var;
        var_kind k = info_of(em, v)->kind;
        if (v == em->stream_var || v == em->implicit_var) {
            const char *T = scalar_ctype(t->kind), *base = v == em->stream_var ? em->stream_base : em->implicit_base;
            return (lane_form){true, {base, S(em, "((%s)(%s + 16u))", T, base)}, 1, ""};
        }
        if (k == VK_LANE_ATTR) return attr_form(em, v, comp < 0 ? 0 : comp);
        const ir_expr *init = v->id >= 0 && v->id < em->var_count ? em->inits[v->id] : NULL;
        if (v->storage == IR_VAR_LOCAL && !v->is_assigned && !v->address_taken && init && reevaluable(em, init, 0))
            return lane_form_of(em, init, comp, depth + 1);
        if ((k == VK_GANG || k == VK_CONTEXT) && ir_is_scalar(v->type) && v->type->kind == t->kind) {
            /* a per-lane index variable (a grid-stride loop's i): its lanes are tested at run time */
            int bits = (int)t->size * 8;
            const char *cname = info_of(em, v)->cname;
            return (lane_form){true, {S(em, "%s[0]", cname), S(em, "%s[16]", cname)}, 1,
                               S(em, " && enk_halves_consecutive_u%d((const uint%d_t *)%s)", bits, bits, cname)};
        }
        return no_form;
    }
    case IR_E_SWIZZLE:
        if (e->args[0]->type->kind != IR_T_VEC) return no_form;
        return lane_form_of(em, e->args[0], e->swizzle[comp < 0 ? 0 : comp], depth + 1);
    case IR_E_VECTOR: return lane_form_of(em, e->args[comp < 0 ? 0 : comp], -1, depth + 1);
    case IR_E_SPLAT: return lane_form_of(em, e->args[0], -1, depth + 1);
    case IR_E_CONVERT: {
        const ir_expr *a = e->args[0];
        lane_form f = lane_form_of(em, a, comp_of(a, comp), depth + 1);
        if (!f.ok || (f.step && ir_scalar_of(a->type)->size != t->size)) return no_form;
        for (int h = 0; h < 2; h++) f.base[h] = convert_expr(em, t, ir_scalar_of(a->type), f.base[h]);
        return f;
    }
    case IR_E_BINARY: {
        const ir_expr *x = e->args[0], *y = e->args[1];
        if (e->op != IR_OP_ADD && e->op != IR_OP_SUB && e->op != IR_OP_MUL && e->op != IR_OP_SHL) return no_form;
        lane_form a = lane_form_of(em, x, comp_of(x, comp), depth + 1);
        if (!a.ok) return no_form;
        lane_form b = lane_form_of(em, y, comp_of(y, comp), depth + 1);
        if (!b.ok) return no_form;
        int64_t step = 0;
        switch (e->op) {
        case IR_OP_ADD: step = a.step + b.step; break;
        case IR_OP_SUB: step = a.step - b.step; break;
        case IR_OP_MUL:
            if (a.step && b.step) return no_form;
            if (a.step || b.step) { /* the other factor must be a literal */
                const ir_expr *k = a.step ? y : x;
                if (k->kind != IR_E_CONST) return no_form;
                int64_t c = ir_is_signed(k->type) ? k->c.i : (int64_t)k->c.u;
                if (c < -(1 << 20) || c > (1 << 20)) return no_form;
                step = (a.step ? a.step : b.step) * c;
            }
            break;
        default: /* SHL */
            if (b.step) return no_form;
            if (a.step) {
                if (y->kind != IR_E_CONST || y->c.u > 16) return no_form;
                step = a.step << y->c.u;
            }
            break;
        }
        if (step < -(1 << 20) || step > (1 << 20)) return no_form;
        lane_form f = {true, {NULL, NULL}, step, join_guards(em, a.guard, b.guard)};
        for (int h = 0; h < 2; h++) f.base[h] = binary_expr(em, e->op, t, a.base[h], b.base[h]);
        return f;
    }
    default: return no_form;
    }
}

/* the address of a place whose lanes' addresses have a lane form (see above) */
static addr_form place_form(emitter *em, const ir_expr *e, int depth) {
    addr_form none = {0};
    if (depth > 8) return none;
    switch (e->kind) {
    case IR_E_VAR: {
        var_kind k = info_of(em, e->var)->kind;
        if (k != VK_THREADGROUP && k != VK_GLOBAL) return none;
        const char *p = S(em, "(&%s)", var_lvalue(em, e->var));
        return (addr_form){true, {p, p}, 0, "", false};
    }
    case IR_E_DEREF: {
        const ir_expr *ptr = e->args[0];
        if (!lane_invariant(em, ptr)) return none;
        const char *p = ex(em, ptr, -1);
        if (mentions_lane(p)) return none;
        bool dev = ptr->type->space == IR_SPACE_DEVICE || ptr->type->space == IR_SPACE_CONSTANT;
        return (addr_form){true, {p, p}, 0, "", dev};
    }
    case IR_E_FIELD: {
        if (!ir_is_place(e->args[0])) return none;
        addr_form b = place_form(em, e->args[0], depth + 1);
        if (!b.ok || b.step) return none;
        const char *name = ident(em, e->args[0]->type->fields[e->field].name);
        for (int h = 0; h < 2; h++) b.ptr[h] = S(em, "(&(*%s).%s)", b.ptr[h], name);
        return b;
    }
    case IR_E_INDEX: {
        const ir_expr *base = e->args[0];
        lane_form i = lane_form_of(em, e->args[1], -1, 0);
        if (!i.ok || i.step < 0) return none;
        const ir_type *it = ir_scalar_of(e->args[1]->type);
        const char *guard = i.guard;
        if (i.step) { /* lanes j = 0..15 of each half add up to 15 * step: no wrap */
            const char *max = ir_is_signed(it) ? (it->size == 8 ? "INT64_MAX" : "INT32_MAX")
                                               : (it->size == 8 ? "UINT64_MAX" : "UINT32_MAX");
            const char *T = scalar_ctype(it->kind);
            guard = S(em, "%s && %s <= (%s)(%s - %lld) && %s <= (%s)(%s - %lld)", guard, i.base[0], T, max,
                      (long long)(15 * i.step), i.base[1], T, max, (long long)(15 * i.step));
        }
        addr_form f;
        if (base->type->kind == IR_T_PTR) {
            if (!lane_invariant(em, base)) return none;
            const char *p = ex(em, base, -1);
            if (mentions_lane(p)) return none;
            f = (addr_form){true, {NULL, NULL}, i.step, guard,
                            base->type->space == IR_SPACE_DEVICE || base->type->space == IR_SPACE_CONSTANT};
            for (int h = 0; h < 2; h++) f.ptr[h] = S(em, "(&(%s)[%s])", p, i.base[h]);
            return f;
        }
        if (!ir_is_place(base)) return none;
        f = place_form(em, base, depth + 1);
        if (!f.ok || f.step) return none;
        const char *sel = base->type->kind == IR_T_VEC ? "v" : "a";
        for (int h = 0; h < 2; h++) f.ptr[h] = S(em, "(&(*%s).%s[%s])", f.ptr[h], sel, i.base[h]);
        f.step = i.step;
        f.guard = join_guards(em, f.guard, guard);
        return f;
    }
    default: return none;
    }
}

/* Does checked mode instrument this access? The fast path has no per-lane address array
 * for the hook to see, so an access the hook would instrument keeps the general path. The
 * hook is asked with its output set aside: it instruments when it emits code or narrows
 * the mask. (Generated C is then the same as unchecked until checked mode instruments.)
 * Asked in checked builds only, so the hook may keep state (site numbers...) without
 * unchecked builds paying for it; a probe that it does not instrument must leave none. */
static bool access_hooked(emitter *em, const ir_expr *place, const ir_type *t, bool is_store) {
    en_buf probe = {0}, *out = em->out;
    int indent = em->indent;
    em->out = &probe;
    const char *lanes = access_lanes(em, place, t, "_a_probe", is_store ? ACCESS_STORE : ACCESS_LOAD);
    em->out = out;
    em->indent = indent;
    bool hooked = probe.len != 0 || strcmp(lanes, em->mask) != 0;
    en_buf_free(&probe);
    return hooked;
}

/* A grid-stride loop jumps far between iterations, beyond what the hardware prefetcher
 * follows: track this load site's stride (from `addr`, the first lane's address as an
 * uintptr_t) and prefetch the 128 bytes the gang will read 8 iterations on. In an
 * interleaved phase the SIMD groups take turns at the site, so each has its own tracker.
 * The lines go to L2, not L1: 8 steps ahead of every SIMD group of a threadgroup is up to
 * 32 KiB in flight, which would crowd L1 out (bench/NOTES-cpu.md, change 5). */
static void emit_prefetch(emitter *em, const char *addr) {
    int site = em->prefetch_sites;
    em->prefetch_sites += em->interleaving ? 32 : 1;
    const char *slot = em->interleaving ? S(em, "_pf[%d + _sg]", site) : S(em, "_pf[%d]", site);
    line(em, "{ uintptr_t _at = %s; intptr_t _d = (intptr_t)(_at - %s); %s = _at;", addr, slot, slot);
    line(em, "  if (_d > 256 && _d < (1 << 24)) { __builtin_prefetch((char *)_at + 8 * _d, 0, 2); "
             "__builtin_prefetch((char *)_at + 8 * _d + 64, 0, 2); } }");
}

/* Opens the lane-affine fast path of an access when its address has a lane form: emits
 * `if (full mask && _aff && no wrap) { vector moves } else {` and returns true; the
 * caller's general code follows and closes the brace. */
static bool open_affine_access(emitter *em, const ir_expr *place, const ir_type *t, bool is_store,
                               const char *temp) {
    if (!em->fast_paths || !place || place->type != t || (t->kind == IR_T_VEC && t->count == 3 && !t->packed))
        return false;
    if (em->checked && access_hooked(em, place, t, is_store)) return false;
    addr_form f = place_form(em, place, 0);
    if (!f.ok || f.step > 1 || (is_store && f.step == 0)) return false;
    const char *ct = ctype(em, t);
    int id = fresh(em);
    OPEN("if (%s == ENK_FULL%s) { /* lane-affine address: %s per half of the gang */", em->mask,
         f.guard, f.step ? "consecutive elements" : "one element");
    line(em, "%s *_p%d = %s, *_q%d = %s; /* lanes 0 and 16 */", ct, id, f.ptr[0], id, f.ptr[1]);
    if (!is_store && f.device && (em->loops.count > 0 || em->interleaving))
        emit_prefetch(em, S(em, "(uintptr_t)_p%d", id));
    if (f.step == 0) {
        line(em, "%s _v%d = *_p%d, _w%d = *_q%d;", ct, id, id, id, id);
        line(em, "for (int l = 0; l < 32; l++) %s[l] = l < 16 ? _v%d : _w%d;", temp, id, id);
    } else if (is_store) {
        line(em, "if (_q%d == _p%d + 16) for (int l = 0; l < 32; l++) _p%d[l] = %s[l];", id, id, id, temp);
        OPEN("else { /* lanes in order: where the halves overlap, the later lane's value stays */");
        line(em, "for (int l = 0; l < 16; l++) _p%d[l] = %s[l];", id, temp);
        line(em, "for (int l = 0; l < 16; l++) _q%d[l] = %s[l + 16];", id, temp);
        CLOSE();
    } else {
        line(em, "if (_q%d == _p%d + 16) for (int l = 0; l < 32; l++) %s[l] = _p%d[l];", id, id, temp, id);
        line(em, "else for (int l = 0; l < 16; l++) { %s[l] = _p%d[l]; %s[l + 16] = _q%d[l]; }", temp, id, temp, id);
    }
    em->indent--;
    OPEN("} else {");
    return true;
}

/* THE memory-access choke point. Every load and store of device, constant, threadgroup or
 * dynamically indexed memory is emitted here: addresses per lane, then a full-mask
 * contiguous fast path, else a masked per-lane loop. Checked mode instruments here. */
static void emit_access(emitter *em, const ir_expr *place, const ir_type *t, const char *addr,
                        bool is_store, const char *temp) {
    const char *ct = ctype(em, t);
    int id = fresh(em);
    if (!is_store) line(em, "%s %s[32];", ct, temp);
    bool affine = open_affine_access(em, place, t, is_store, temp);
    OPEN("{ /* %s of %s */", is_store ? "store" : "load", ir_type_name(t, &em->arena));
    line(em, "uintptr_t _a%d[32];", id);
    line(em, "for (int l = 0; l < 32; l++) _a%d[l] = (uintptr_t)(%s);", id, addr);
    const char *outer_mask = em->mask;
    em->store_values = is_store ? temp : NULL;
    em->mask = access_lanes(em, place, t, S(em, "_a%d", id), is_store ? ACCESS_STORE : ACCESS_LOAD);
    em->store_values = NULL;
    OPEN("if (%s == ENK_FULL && enk_contiguous(_a%d, sizeof(%s))) {", em->mask, id, ct);
    line(em, "%s *_b%d = (%s *)_a%d[0];", ct, id, ct, id);
    if (!is_store && (em->loops.count > 0 || em->interleaving)) emit_prefetch(em, S(em, "_a%d[0]", id));
    if (is_store) line(em, "for (int l = 0; l < 32; l++) _b%d[l] = %s[l];", id, temp);
    else line(em, "for (int l = 0; l < 32; l++) %s[l] = _b%d[l];", temp, id);
    em->indent--;
    OPEN("} else if (%s == ENK_FULL) { /* every lane: an unmasked gather/scatter */", em->mask);
    if (is_store)
        line(em, "for (int l = 0; l < 32; l++) *(%s *)_a%d[l] = %s[l];", ct, id, temp);
    else
        line(em, "for (int l = 0; l < 32; l++) %s[l] = *(%s *)_a%d[l];", temp, ct, id);
    em->indent--;
    OPEN("} else {");
    if (is_store)
        line(em, "for (int l = 0; l < 32; l++) if (ENK_ON(%s, l)) *(%s *)_a%d[l] = %s[l];", em->mask,
             ct, id, temp);
    else
        line(em, "for (int l = 0; l < 32; l++) %s[l] = ENK_ON(%s, l) ? *(%s *)_a%d[l] : (%s){0};",
             temp, em->mask, ct, id, ct);
    CLOSE();
    CLOSE();
    em->mask = outer_mask;
    if (affine) CLOSE();
}

/* the same choke point for a load whose address is the same in every lane */
static void emit_uniform_load(emitter *em, const ir_expr *place, const ir_type *t, const char *addr,
                              const char *temp) {
    const char *ct = ctype(em, t);
    int id = fresh(em);
    line(em, "%s %s = (%s){0}; /* uniform load of %s */", ct, temp, ct, ir_type_name(t, &em->arena));
    line(em, "uintptr_t _a%d[1] = {(uintptr_t)(%s)};", id, addr);
    const char *lanes = access_lanes(em, place, t, S(em, "_a%d", id), ACCESS_UNIFORM_LOAD);
    line(em, "if (%s) %s = *(%s *)_a%d[0];", lanes, temp, ct, id);
}

/* does e compute the same value in every lane (no per-lane variable in it)? */
static bool lane_invariant(emitter *em, const ir_expr *e) {
    if (e->kind == IR_E_VAR) {
        var_kind k = info_of(em, e->var)->kind;
        return k == VK_UNIFORM || k == VK_GLOBAL || k == VK_THREADGROUP || k == VK_SCALAR || k == VK_SCALAR_SG;
    }
    for (int i = 0; i < e->arg_count; i++)
        if (!lane_invariant(em, e->args[i])) return false;
    return true;
}

/* a load as a gang array: "_tN" */
static const char *load_array(emitter *em, const ir_expr *e) {
    const char *memo = memo_find(em, e);
    if (memo && memo[strlen(memo) - 1] == ']') return en_strndup(&em->arena, memo, strlen(memo) - 3);
    const char *addr = S(em, "&%s", lvalue(em, e));
    const char *temp = S(em, "_t%d", fresh(em));
    emit_access(em, e, e->type, addr, false, temp);
    memo_add(em, e, S(em, "%s[l]", temp));
    return temp;
}

/* a load, as the C expression that reads it for lane l: "_tN[l]", or "_tN" when every
 * lane reads the same address (one scalar load instead of 32) */
static const char *load_value(emitter *em, const ir_expr *e) {
    const char *memo = memo_find(em, e);
    if (memo) return memo;
    if (!lane_invariant(em, e)) {
        load_array(em, e);
        return memo_find(em, e);
    }
    const char *addr = S(em, "&%s", lvalue(em, e));
    const char *temp = S(em, "_t%d", fresh(em));
    emit_uniform_load(em, e, e->type, addr, temp);
    memo_add(em, e, temp);
    return temp;
}

/* a whole value into a gang temporary (storage representation) */
static const char *materialize(emitter *em, const ir_expr *e) {
    const char *memo = memo_find(em, e);
    if (memo) return memo;
    if (ir_is_place(e) && e->kind != IR_E_SWIZZLE && needs_access(e) && !lane_invariant(em, e))
        return load_array(em, e);
    const char *temp = S(em, "_t%d", fresh(em));
    const ir_type *t = e->type;
    if (e->kind == IR_E_BITCAST) {
        const char *src = materialize(em, e->args[0]);
        line(em, "%s %s[32];", ctype(em, t), temp);
        line(em, "for (int l = 0; l < 32; l++) memcpy(&%s[l], &%s[l], sizeof %s[l]);", temp, src, temp);
    } else if (t->kind == IR_T_VEC) {
        const char **comps = en_alloc(&em->arena, sizeof(char *) * t->count);
        for (uint32_t c = 0; c < t->count; c++) comps[c] = to_storage(em, t->elem, ex(em, e, (int)c));
        line(em, "%s %s[32];", ctype(em, t), temp);
        OPEN("for (int l = 0; l < 32; l++) {");
        for (uint32_t c = 0; c < t->count; c++) line(em, "%s[l].v[%u] = %s;", temp, c, comps[c]);
        CLOSE();
    } else {
        const char *v = whole(em, e);
        line(em, "%s %s[32];", ctype(em, t), temp);
        line(em, "for (int l = 0; l < 32; l++) %s[l] = %s;", temp, v);
    }
    memo_add(em, e, temp);
    return temp;
}

/* a place read: component comp (or the scalar) in its computed type */
static const char *read_place(emitter *em, const ir_expr *e, int comp) {
    if (e->kind == IR_E_SWIZZLE && e->args[0]->type->kind == IR_T_VEC)
        return read_place(em, e->args[0], e->swizzle[comp < 0 ? 0 : comp]);
    const ir_type *t = e->type;
    const char *base = needs_access(e) ? load_value(em, e) : lvalue(em, e);
    if (t->kind == IR_T_VEC) {
        if (comp < 0) comp = 0;
        return from_storage(em, t->elem, S(em, "%s.v[%d]", base, comp));
    }
    return from_storage(em, t, base);
}

/* the whole value in storage representation (any type) */
static const char *whole(emitter *em, const ir_expr *e) {
    const ir_type *t = e->type;
    if (ir_is_place(e) && !(e->kind == IR_E_SWIZZLE)) {
        if (needs_access(e)) return load_value(em, e);
        return lvalue(em, e);
    }
    switch (t->kind) {
    case IR_T_VEC: {
        en_buf b = {0};
        en_buf_printf(&b, "((%s){{", ctype(em, t));
        for (uint32_t c = 0; c < t->count; c++)
            en_buf_printf(&b, "%s%s", c ? ", " : "", to_storage(em, t->elem, ex(em, e, (int)c)));
        en_buf_puts(&b, "}})");
        const char *r = S(em, "%s", b.data);
        en_buf_free(&b);
        return r;
    }
    case IR_T_STRUCT:
    case IR_T_ARRAY:
        if (e->kind == IR_E_AGGREGATE) {
            en_buf b = {0};
            bool arr = t->kind == IR_T_ARRAY;
            en_buf_printf(&b, "((%s){%s", ctype(em, t), arr ? "{" : "");
            for (int i = 0; i < e->arg_count; i++)
                en_buf_printf(&b, "%s%s", i ? ", " : "", whole(em, e->args[i]));
            en_buf_printf(&b, "%s})", arr ? "}" : "");
            const char *r = S(em, "%s", b.data);
            en_buf_free(&b);
            return r;
        }
        if (e->kind == IR_E_SELECT)
            return S(em, "(%s ? %s : %s)", ex(em, e->args[0], -1), whole(em, e->args[1]),
                     whole(em, e->args[2]));
        if (e->kind == IR_E_BITCAST) return S(em, "%s[l]", materialize(em, e));
        fail(em, e->loc, "an aggregate value of expression kind %d", (int)e->kind);
        return "0";
    case IR_T_SIMD_MATRIX:
        fail(em, e->loc, "a simdgroup matrix value that is not a variable");
        return "0";
    default:
        if (e->kind == IR_E_BITCAST) return S(em, "%s[l]", materialize(em, e));
        return to_storage(em, t, ex(em, e, -1));
    }
}

static const char *binary_expr(emitter *em, ir_op op, const ir_type *t, const char *a,
                               const char *b) {
    const char *sym = ir_op_name(op);
    if (op >= IR_OP_EQ && op <= IR_OP_GE) return S(em, "(%s %s %s)", a, sym, b);
    if (op == IR_OP_LOGAND || op == IR_OP_LOGOR) return S(em, "(%s %s %s)", a, sym, b);
    if (t->kind == IR_T_BOOL) return S(em, "(%s %s %s)", a, sym, b);
    if (t->kind == IR_T_PTR) return S(em, "((int64_t)(%s - %s))", a, b);
    if (ir_is_float(t)) {
        if (op == IR_OP_REM) return rounded(em, t, S(em, "fmodf(%s, %s)", a, b));
        return rounded(em, t, S(em, "(%s %s %s)", a, sym, b));
    }
    const char *T = scalar_ctype(t->kind), *U = wide_unsigned(t);
    int w = int_bits(t);
    switch (op) {
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: /* wraps, as on the GPU */
        return S(em, "((%s)((%s)%s %s (%s)%s))", T, U, a, sym, U, b);
    case IR_OP_DIV: return S(em, "enk_div_%s(%s, %s)", suffix_of(t), a, b);
    case IR_OP_REM: return S(em, "enk_rem_%s(%s, %s)", suffix_of(t), a, b);
    case IR_OP_SHL: return S(em, "((%s)((%s)%s << ((%s) & %d)))", T, U, a, b, w - 1);
    case IR_OP_SHR:
        if (ir_is_signed(t))
            return S(em, "((%s)((%s)%s >> ((%s) & %d)))", T, t->size == 8 ? "int64_t" : "int32_t", a, b, w - 1);
        return S(em, "((%s)((%s)%s >> ((%s) & %d)))", T, U, a, b, w - 1);
    default: return S(em, "((%s)(%s %s %s))", T, a, sym, b);
    }
}

static const char *convert_expr(emitter *em, const ir_type *to, const ir_type *from, const char *a) {
    if (to == from) return a;
    if (to->kind == IR_T_BOOL) return S(em, "(%s != 0)", a);
    if (ir_is_float(to)) {
        if (ir_is_float(from) && from->kind != IR_T_F32 && to->kind == IR_T_F32) return a;
        return rounded(em, to, S(em, "(float)(%s)", a));
    }
    if (ir_is_float(from)) return S(em, "enk_cvt_%s(%s)", suffix_of(to), a);
    return S(em, "((%s)(%s))", scalar_ctype(to->kind), a);
}

static const char *call_expr(emitter *em, const ir_expr *e, int comp);

static const char *ex(emitter *em, const ir_expr *e, int comp) {
    const ir_type *t = e->type;
    switch (e->kind) {
    case IR_E_CONST: return const_literal(em, t, e->c);
    case IR_E_VAR:
    case IR_E_INDEX:
    case IR_E_FIELD:
    case IR_E_DEREF:
    case IR_E_SWIZZLE:
        if (e->kind == IR_E_SWIZZLE && !ir_is_place(e->args[0])) {
            const ir_expr *b = e->args[0];
            return ex(em, b, e->swizzle[comp < 0 ? 0 : comp]);
        }
        if (e->kind == IR_E_INDEX && e->args[0]->type->kind == IR_T_VEC && !ir_is_place(e->args[0])) {
            const char *tmp = materialize(em, e->args[0]);
            return from_storage(em, t, S(em, "%s[l].v[%s]", tmp, ex(em, e->args[1], -1)));
        }
        return read_place(em, e, comp);
    case IR_E_ADDR: return S(em, "(&%s)", lvalue(em, e->args[0]));
    case IR_E_UNARY: {
        const ir_expr *a = e->args[0];
        const char *x = ex(em, a, comp_of(a, comp));
        const ir_type *st = ir_scalar_of(t);
        switch (e->op) {
        case IR_OP_NEG:
            if (ir_is_float(st)) return S(em, "(-%s)", x);
            return S(em, "((%s)(0u - (%s)%s))", scalar_ctype(st->kind), wide_unsigned(st), x);
        case IR_OP_NOT: return S(em, "(!%s)", x);
        case IR_OP_BITNOT:
            if (st->kind == IR_T_BOOL) return S(em, "(!%s)", x);
            return S(em, "((%s)~%s)", scalar_ctype(st->kind), x);
        default: break;
        }
        fail(em, e->loc, "unary operator %d", (int)e->op);
        return "0";
    }
    case IR_E_BINARY: {
        const ir_expr *a = e->args[0], *b = e->args[1];
        const ir_type *st = ir_scalar_of(a->type);
        if (em->checked && (e->op == IR_OP_DIV || e->op == IR_OP_REM) && ir_is_integer(st) &&
            !(b->kind == IR_E_CONST && b->c.u != 0)) { /* checked: report an active lane's zero divisor */
            const char *site = check_site(em, e->loc, e->op == IR_OP_DIV ? CPU_CHECK_DIV : CPU_CHECK_REM, 0, -1, NULL,
                                          e->op == IR_OP_DIV ? "/" : "%");
            return S(em, "enk_c%s_%s(%s, %s, ENK_ON(%s, l), _cg, %s, _sg, l)", e->op == IR_OP_DIV ? "div" : "rem",
                     suffix_of(st), ex(em, a, comp_of(a, comp)), ex(em, b, comp_of(b, comp)), em->mask, site);
        }
        return binary_expr(em, e->op, ir_scalar_of(a->type), ex(em, a, comp_of(a, comp)),
                           ex(em, b, comp_of(b, comp)));
    }
    case IR_E_SELECT: {
        const ir_expr *c = e->args[0];
        if (t->kind != IR_T_VEC && !ir_is_scalar(t) && t->kind != IR_T_PTR)
            return whole(em, e);
        return S(em, "(%s ? %s : %s)", ex(em, c, comp_of(c, comp)), ex(em, e->args[1], comp),
                 ex(em, e->args[2], comp));
    }
    case IR_E_CONVERT: {
        const ir_expr *a = e->args[0];
        return convert_expr(em, ir_scalar_of(t), ir_scalar_of(a->type), ex(em, a, comp_of(a, comp)));
    }
    case IR_E_BITCAST: {
        const char *tmp = materialize(em, e);
        if (t->kind == IR_T_VEC) return from_storage(em, t->elem, S(em, "%s[l].v[%d]", tmp, comp < 0 ? 0 : comp));
        return from_storage(em, t, S(em, "%s[l]", tmp));
    }
    case IR_E_PTRCAST: return S(em, "((%s)%s)", ctype(em, t), ex(em, e->args[0], -1));
    case IR_E_PTR_OFFSET:
        return S(em, "(%s + %s)", ex(em, e->args[0], -1), ex(em, e->args[1], -1));
    case IR_E_SPLAT: return ex(em, e->args[0], -1);
    case IR_E_VECTOR: return ex(em, e->args[comp < 0 ? 0 : comp], -1);
    case IR_E_CALL: return call_expr(em, e, comp);
    case IR_E_AGGREGATE: break;
    }
    fail(em, e->loc, "expression kind %d used as a scalar", (int)e->kind);
    return "0";
}

/* ---- pure built-in functions -------------------------------------------------------- */
static const char *float_fn1(ir_intrinsic i) {
    switch (i) {
    case IR_I_ABS: case IR_I_FABS: return "fabsf";
    case IR_I_FLOOR: return "floorf";
    case IR_I_CEIL: return "ceilf";
    case IR_I_ROUND: return "roundf";
    case IR_I_RINT: return "rintf";
    case IR_I_TRUNC: return "truncf";
    case IR_I_FRACT: return "enk_fract";
    case IR_I_EXP: return "expf";
    case IR_I_EXP2: return "exp2f";
    case IR_I_EXP10: return "enk_exp10";
    case IR_I_LOG: return "logf";
    case IR_I_LOG2: return "log2f";
    case IR_I_LOG10: return "log10f";
    case IR_I_SQRT: return "sqrtf";
    case IR_I_SIN: return "sinf";
    case IR_I_COS: return "cosf";
    case IR_I_TAN: return "tanf";
    case IR_I_ASIN: return "asinf";
    case IR_I_ACOS: return "acosf";
    case IR_I_ATAN: return "atanf";
    case IR_I_SINH: return "sinhf";
    case IR_I_COSH: return "coshf";
    case IR_I_TANH: return "tanhf";
    case IR_I_ASINH: return "asinhf";
    case IR_I_ACOSH: return "acoshf";
    case IR_I_ATANH: return "atanhf";
    case IR_I_SINPI: return "enk_sinpi";
    case IR_I_COSPI: return "enk_cospi";
    case IR_I_TANPI: return "enk_tanpi";
    case IR_I_SIGN: return "enk_sign";
    case IR_I_MODF_FRACTION: return "enk_modf_frac";
    case IR_I_FREXP_MANTISSA: return "enk_frexp_m";
    default: return NULL;
    }
}
static const char *float_fn2(ir_intrinsic i) {
    switch (i) {
    case IR_I_MIN: case IR_I_FMIN: return "fminf";
    case IR_I_MAX: case IR_I_FMAX: return "fmaxf";
    case IR_I_FMOD: return "fmodf";
    case IR_I_FDIM: return "fdimf";
    case IR_I_POW: case IR_I_POWR: return "powf";
    case IR_I_ATAN2: return "atan2f";
    case IR_I_COPYSIGN: return "copysignf";
    default: return NULL;
    }
}

static const char *call_expr(emitter *em, const ir_expr *e, int comp) {
    const ir_type *t = e->type;
    const ir_type *at = e->arg_count ? e->args[0]->type : t;
    const ir_type *as = ir_scalar_of(at);
    const char *a[4] = {"0", "0", "0", "0"};
    ir_intrinsic i = e->intrinsic;
    bool horizontal = i == IR_I_DOT || i == IR_I_LENGTH || i == IR_I_DISTANCE ||
                      i == IR_I_NORMALIZE || i == IR_I_CROSS || i == IR_I_ALL || i == IR_I_ANY;
    if (!horizontal)
        for (int k = 0; k < e->arg_count && k < 4; k++)
            a[k] = ex(em, e->args[k], comp_of(e->args[k], comp));
    const ir_type *rs = ir_scalar_of(t);
    if (horizontal) {
        int n = ir_lanes(at);
        en_buf b = {0};
        const char *r;
        switch (i) {
        case IR_I_ALL:
        case IR_I_ANY:
            en_buf_putc(&b, '(');
            for (int c = 0; c < n; c++)
                en_buf_printf(&b, "%s%s", c ? (i == IR_I_ALL ? " && " : " || ") : "",
                              ex(em, e->args[0], comp_of(e->args[0], c)));
            en_buf_putc(&b, ')');
            break;
        case IR_I_DOT:
        case IR_I_LENGTH:
        case IR_I_DISTANCE:
        case IR_I_NORMALIZE:
            en_buf_putc(&b, '(');
            for (int c = 0; c < n; c++) {
                const char *x = ex(em, e->args[0], comp_of(e->args[0], c));
                if (i == IR_I_DOT) {
                    en_buf_printf(&b, "%s%s * %s", c ? " + " : "", x, ex(em, e->args[1], comp_of(e->args[1], c)));
                } else if (i == IR_I_DISTANCE) {
                    const char *y = ex(em, e->args[1], comp_of(e->args[1], c));
                    en_buf_printf(&b, "%s(%s - %s) * (%s - %s)", c ? " + " : "", x, y, x, y);
                } else {
                    en_buf_printf(&b, "%s%s * %s", c ? " + " : "", x, x);
                }
            }
            en_buf_putc(&b, ')');
            break;
        case IR_I_CROSS: {
            int c1 = (comp + 1) % 3, c2 = (comp + 2) % 3;
            const ir_expr *x = e->args[0], *y = e->args[1];
            en_buf_printf(&b, "(%s * %s - %s * %s)", ex(em, x, c1), ex(em, y, c2), ex(em, x, c2), ex(em, y, c1));
            break;
        }
        default: break;
        }
        r = S(em, "%s", b.data ? b.data : "0");
        en_buf_free(&b);
        if (i == IR_I_LENGTH || i == IR_I_DISTANCE) r = S(em, "sqrtf%s", r);
        if (i == IR_I_NORMALIZE)
            r = S(em, "(%s / sqrtf%s)", ex(em, e->args[0], comp), r);
        if (i == IR_I_ALL || i == IR_I_ANY) return r;
        return rounded(em, rs, r);
    }
    if (ir_is_float(as) || (ir_is_float(rs) && i != IR_I_SELECT)) {
        const char *fn = float_fn1(i);
        const char *r = NULL;
        if (fn) r = S(em, "%s(%s)", fn, a[0]);
        else if ((fn = float_fn2(i))) r = S(em, "%s(%s, %s)", fn, a[0], a[1]);
        else switch (i) {
        case IR_I_CLAMP: r = S(em, "enk_clampf(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MIX: r = S(em, "(%s + (%s - %s) * %s)", a[0], a[1], a[0], a[2]); break;
        case IR_I_STEP: r = S(em, "(%s < %s ? 0.0f : 1.0f)", a[1], a[0]); break;
        case IR_I_SMOOTHSTEP: r = S(em, "enk_smoothstep(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_SATURATE: r = S(em, "enk_clampf(%s, 0.0f, 1.0f)", a[0]); break;
        case IR_I_RSQRT: r = S(em, "(1.0f / sqrtf(%s))", a[0]); break;
        case IR_I_FMA: r = S(em, "fmaf(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MAD: r = S(em, "(%s * %s + %s)", a[0], a[1], a[2]); break;
        case IR_I_LDEXP: r = S(em, "ldexpf(%s, (int)%s)", a[0], a[1]); break;
        case IR_I_FREXP_EXPONENT: return S(em, "((%s)enk_frexp_e(%s))", scalar_ctype(rs->kind), a[0]);
        case IR_I_ISNAN: return S(em, "(isnan(%s) != 0)", a[0]);
        case IR_I_ISINF: return S(em, "(isinf(%s) != 0)", a[0]);
        case IR_I_ISFINITE: return S(em, "(isfinite(%s) != 0)", a[0]);
        case IR_I_SIGNBIT: return S(em, "(signbit(%s) != 0)", a[0]);
        case IR_I_MAX3: r = S(em, "enk_max3f(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MIN3: r = S(em, "enk_min3f(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_MEDIAN3: r = S(em, "enk_median3f(%s, %s, %s)", a[0], a[1], a[2]); break;
        case IR_I_SELECT: break;
        default: break;
        }
        if (r) return rounded(em, rs, r);
    }
    if (i == IR_I_SELECT) return S(em, "(%s ? %s : %s)", a[2], a[1], a[0]);
    if (ir_is_integer(as)) {
        const char *s = suffix_of(as);
        switch (i) {
        case IR_I_ABS: return S(em, "((%s)enk_abs_%s(%s))", scalar_ctype(rs->kind), s, a[0]);
        case IR_I_MIN: return S(em, "enk_min_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MAX: return S(em, "enk_max_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_CLAMP: return S(em, "enk_clamp_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_POPCOUNT: return S(em, "enk_popcount_%s(%s)", s, a[0]);
        case IR_I_CLZ: return S(em, "enk_clz_%s(%s)", s, a[0]);
        case IR_I_CTZ: return S(em, "enk_ctz_%s(%s)", s, a[0]);
        case IR_I_MULHI: return S(em, "enk_mulhi_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MUL24: return S(em, "enk_mul24_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MAD24:
            return binary_expr(em, IR_OP_ADD, as, S(em, "enk_mul24_%s(%s, %s)", s, a[0], a[1]), a[2]);
        case IR_I_ROTATE: return S(em, "enk_rotate_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_ADDSAT: return S(em, "enk_addsat_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_SUBSAT: return S(em, "enk_subsat_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_ABSDIFF: return S(em, "((%s)enk_absdiff_%s(%s, %s))", scalar_ctype(rs->kind), s, a[0], a[1]);
        case IR_I_HADD: return S(em, "enk_hadd_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_RHADD: return S(em, "enk_rhadd_%s(%s, %s)", s, a[0], a[1]);
        case IR_I_MAX3: return S(em, "enk_max3_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_MIN3: return S(em, "enk_min3_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_MEDIAN3: return S(em, "enk_median3_%s(%s, %s, %s)", s, a[0], a[1], a[2]);
        case IR_I_EXTRACT_BITS:
            return S(em, "enk_extract_bits_%s(%s, (uint32_t)%s, (uint32_t)%s)", s, a[0], a[1], a[2]);
        case IR_I_INSERT_BITS:
            return S(em, "enk_insert_bits_%s(%s, %s, (uint32_t)%s, (uint32_t)%s)", s, a[0], a[1], a[2], a[3]);
        case IR_I_REVERSE_BITS: return S(em, "enk_reverse_bits_%s(%s)", s, a[0]);
        default: break;
        }
    }
    fail(em, e->loc, "built-in %s on %s is not supported by the cpu backend", ir_intrinsic_name(i),
         ir_type_name(at, &em->arena));
    return "0";
}

/* ---- statements in gang mode --------------------------------------------------------- */
static void gang_stmt(emitter *em, const ir_stmt *s);

static void gang_list(emitter *em, stmt_list list) {
    for (int i = 0; i < list.count; i++) {
        const ir_stmt *s = list_at(list, i);
        gang_stmt(em, s);
        /* the rest of the block is unreachable for every lane */
        if (s->kind == IR_S_BREAK || s->kind == IR_S_CONTINUE || s->kind == IR_S_RETURN) break;
    }
}

static ir_expr var_expr(const ir_var *v) {
    return (ir_expr){.kind = IR_E_VAR, .type = v->type, .loc = v->loc, .var = (ir_var *)v};
}

/* is the variable under this place kept as one value per gang? */
static bool root_is_scalar(emitter *em, const ir_expr *place) {
    while (place->kind == IR_E_FIELD || place->kind == IR_E_SWIZZLE ||
           (place->kind == IR_E_INDEX && place->args[0]->type->kind != IR_T_PTR))
        place = place->args[0];
    if (place->kind != IR_E_VAR) return false;
    var_kind k = info_of(em, place->var)->kind;
    return k == VK_SCALAR || k == VK_SCALAR_SG;
}

/* place = value under the current mask */
static void emit_assign(emitter *em, const ir_expr *place, const ir_expr *value) {
    const ir_type *t = place->type;
    if (place->kind == IR_E_SWIZZLE && place->args[0]->type->kind == IR_T_VEC) {
        const ir_expr *base = place->args[0];
        const ir_type *et = base->type->elem;
        const char *vt = materialize(em, value);
        for (int c = 0; c < place->swizzle_len; c++) {
            const char *vc = t->kind == IR_T_VEC ? S(em, "%s[l].v[%d]", vt, c) : S(em, "%s[l]", vt);
            if (needs_access(base)) {
                const char *addr = S(em, "&%s.v[%d]", lvalue(em, base), place->swizzle[c]);
                const char *tmp = S(em, "_t%d", fresh(em));
                line(em, "%s %s[32];", ctype(em, et), tmp);
                line(em, "for (int l = 0; l < 32; l++) %s[l] = %s;", tmp, vc);
                emit_access(em, place, et, addr, true, tmp);
            } else {
                const char *lv = S(em, "%s.v[%d]", lvalue(em, base), place->swizzle[c]);
                line(em, "for (int l = 0; l < 32; l++) %s = ENK_ON(%s, l) ? %s : %s;", lv, em->mask, vc, lv);
            }
        }
        return;
    }
    if (needs_access(place) && t->kind == IR_T_VEC && t->count == 3 && !t->packed) {
        /* a float3 in memory has a fourth, padding lane that a store must not touch */
        const char *vt = materialize(em, value);
        const char *base = lvalue(em, place);
        for (int c = 0; c < 3; c++) {
            const char *tmp = S(em, "_t%d", fresh(em));
            line(em, "%s %s[32];", ctype(em, t->elem), tmp);
            line(em, "for (int l = 0; l < 32; l++) %s[l] = %s[l].v[%d];", tmp, vt, c);
            emit_access(em, place, t->elem, S(em, "&%s.v[%d]", base, c), true, tmp);
        }
        return;
    }
    if (needs_access(place)) {
        const char *vt = materialize(em, value);
        const char *addr = S(em, "&%s", lvalue(em, place));
        emit_access(em, place, t, addr, true, vt);
        return;
    }
    if ((ir_is_scalar(t) || t->kind == IR_T_PTR) && root_is_scalar(em, place)) {
        /* one value for the whole gang: taken from the first active lane, once (a lane
         * loop would apply `x = x + 1` once per lane) */
        const char *v = to_storage(em, t, ex(em, value, -1));
        const char *lv = lvalue(em, place);
        line(em, "if (%s) { int l = enk_first_lane(%s); %s = %s; }", em->mask, em->mask, lv, v);
        return;
    }
    if (ir_is_scalar(t) || t->kind == IR_T_PTR) {
        const char *v = to_storage(em, t, ex(em, value, -1));
        const char *lv = lvalue(em, place);
        /* every lane on (the common case): a plain vector loop, no per-lane mask test */
        line(em, "if (%s == ENK_FULL) for (int l = 0; l < 32; l++) %s = %s;", em->mask, lv, v);
        line(em, "else for (int l = 0; l < 32; l++) %s = ENK_ON(%s, l) ? %s : %s;", lv, em->mask, v, lv);
        return;
    }
    const char *vt = materialize(em, value);
    const char *lv = lvalue(em, place);
    if (t->kind == IR_T_VEC) { /* by component: a float3's padding lane keeps its bytes */
        for (uint32_t c = 0; c < t->count; c++)
            line(em, "for (int l = 0; l < 32; l++) %s.v[%u] = ENK_ON(%s, l) ? %s[l].v[%u] : %s.v[%u];", lv, c,
                 em->mask, vt, c, lv, c);
        return;
    }
    line(em, "for (int l = 0; l < 32; l++) if (ENK_ON(%s, l)) %s = %s[l];", em->mask, lv, vt);
}

static loop_entry *find_loop(emitter *em, const ir_stmt *target) {
    for (int i = em->loops.count - 1; i >= 0; i--)
        if (em->loops.items[i].loop == target) return &em->loops.items[i];
    return NULL;
}

static void gang_if(emitter *em, const ir_stmt *s) {
    int id = fresh(em);
    OPEN("{ /* if: %s */", source_note(em, s->loc));
    const char *c = ex(em, s->cond, -1);
    line(em, "uint32_t _c%d = 0;", id);
    if (lane_invariant(em, s->cond)) /* the same in every lane: one test, no ballot */
        line(em, "if (%s) { int l = enk_first_lane(%s); (void)l; _c%d = (%s) ? ENK_FULL : 0u; }", em->mask, em->mask, id, c);
    else
        line(em, "for (int l = 0; l < 32; l++) _c%d |= (uint32_t)(%s) << l;", id, c);
    line(em, "uint32_t _m%dt = %s & _c%d, _m%de = %s & ~_c%d;", id, em->mask, id, id, em->mask, id);
    const char *outer = em->mask;
    em->memos.count = 0;
    OPEN("if (_m%dt) {", id);
    em->mask = S(em, "_m%dt", id);
    gang_list(em, list_of(s->then_s));
    CLOSE();
    if (s->else_s) {
        OPEN("if (_m%de) {", id);
        em->mask = S(em, "_m%de", id);
        gang_list(em, list_of(s->else_s));
        CLOSE();
    }
    em->mask = outer;
    line(em, "%s = _m%dt | _m%de;", outer, id, id);
    CLOSE();
}

/* does this statement (list) write v? */
static bool writes_var(const ir_stmt *s, const ir_var *v) {
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (writes_var(s->stmts[i], v)) return true;
        return false;
    case IR_S_DECL: return s->var == v;
    case IR_S_ASSIGN: {
        const ir_expr *p = s->place;
        while (p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE || p->kind == IR_E_INDEX) p = p->args[0];
        return p->kind != IR_E_VAR || p->var == v;
    }
    case IR_S_IF: return writes_var(s->then_s, v) || writes_var(s->else_s, v);
    case IR_S_LOOP: return writes_var(s->body, v) || writes_var(s->latch, v);
    case IR_S_INTRINSIC: case IR_S_CALL: return s->result == v;
    default: return false;
    }
}

/* a lane-invariant value that ex() writes as a plain scalar (no gang temporaries) */
static bool plain_uniform(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_CONST: case IR_E_VAR: case IR_E_DEREF: case IR_E_FIELD: case IR_E_INDEX:
    case IR_E_BINARY: case IR_E_UNARY: case IR_E_CONVERT: case IR_E_SWIZZLE:
        for (int i = 0; i < e->arg_count; i++)
            if (!plain_uniform(em, e->args[i])) return false;
        return lane_invariant(em, e);
    default: return false;
    }
}

/* A streaming loop: `for (i = ...; i < n; i += step)` over a 32-bit per-lane integer i,
 * the body starting with `if (!(i < n)) break;` and not writing i, the latch `i = i + step`
 * with n and step the same in every lane. Returns the index variable (NULL: not one) and
 * sets *limit to n. */
static const ir_var *streaming_loop(emitter *em, const ir_stmt *s, const ir_expr **limit, const ir_expr **step) {
    if (!em->fast_paths || !s->latch) return NULL;
    stmt_list body = list_of(s->body), latch = list_of(s->latch);
    if (body.count < 2 || latch.count != 1) return NULL;
    const ir_stmt *test = list_at(body, 0), *next = list_at(latch, 0);
    if (test->kind != IR_S_IF || test->else_s || !test->then_s) return NULL;
    stmt_list then = list_of(test->then_s);
    if (then.count != 1 || list_at(then, 0)->kind != IR_S_BREAK || list_at(then, 0)->target != s) return NULL;
    const ir_expr *c = test->cond;
    if (c->kind != IR_E_UNARY || c->op != IR_OP_NOT) return NULL;
    c = c->args[0];
    if (c->kind != IR_E_BINARY || c->op != IR_OP_LT || c->args[0]->kind != IR_E_VAR) return NULL;
    const ir_var *v = c->args[0]->var;
    var_kind k = info_of(em, v)->kind;
    if ((k != VK_GANG && k != VK_CONTEXT) || v->address_taken || !ir_is_integer(v->type) || v->type->size != 4)
        return NULL;
    if (!plain_uniform(em, c->args[1])) return NULL;
    /* the latch: i = i + step */
    if (next->kind != IR_S_ASSIGN || next->place->kind != IR_E_VAR || next->place->var != v) return NULL;
    const ir_expr *add = next->value;
    if (add->kind != IR_E_BINARY || add->op != IR_OP_ADD) return NULL;
    const ir_expr *other = add->args[0]->kind == IR_E_VAR && add->args[0]->var == v ? add->args[1]
                           : add->args[1]->kind == IR_E_VAR && add->args[1]->var == v ? add->args[0] : NULL;
    if (!other || !plain_uniform(em, other)) return NULL;
    for (int i = 1; i < body.count; i++)
        if (writes_var(list_at(body, i), v)) return NULL;
    *limit = c->args[1];
    *step = other;
    return v;
}

static void gang_loop(emitter *em, const ir_stmt *s) {
    int id = fresh(em);
    OPEN("{ /* loop: %s */", source_note(em, s->loc));
    line(em, "uint32_t _brk%d = 0, _cont%d, _m%d = %s;", id, id, id, em->mask);
    const char *outer = em->mask;
    em->mask = S(em, "_m%d", id);
    EN_PUSH(&em->arena, em->loops, ((loop_entry){s, false, id}));
    const ir_expr *limit = NULL, *step = NULL;
    const ir_var *index = streaming_loop(em, s, &limit, &step);
    if (index) {
        /* While every lane runs and i is i[0] + lane, one test per gang replaces the ballot
         * and accesses through i need no run-time check; the general loop below takes
         * over at the tail or when the mask narrows. */
        const char *iv = info_of(em, index)->cname, *T = scalar_ctype(index->type->kind);
        const char *max = ir_is_signed(index->type) ? "INT32_MAX" : "UINT32_MAX";
        const char *saved_var = (const char *)em->stream_base;
        const ir_var *saved = em->stream_var;
        OPEN("if (_m%d == ENK_FULL && enk_halves_consecutive_u32((const uint32_t *)%s) && %s[16] == (%s)(%s[0] + 16u)) {",
             id, iv, iv, T, iv);
        line(em, "/* streaming: %s is %s[0] + lane while every lane is in the loop */", index->name, index->name);
        line(em, "%s _ib%d = %s[0]; /* kept in a register, stepped with %s */", T, id, iv, index->name);
        OPEN("for (;;) {");
        em->memos.count = 0;
        const char *n = ex(em, limit, -1);
        line(em, "if (!(_ib%d <= (%s)(%s - 31) && (%s)(_ib%d + 31) < %s)) break; /* a lane at the end: the tail */",
             id, T, max, T, id, n);
        line(em, "_cont%d = 0;", id);
        em->stream_var = index;
        em->stream_base = S(em, "_ib%d", id);
        stmt_list body = list_of(s->body);
        body.count--;
        if (body.items) body.items++;
        em->memos.count = 0;
        gang_list(em, body);
        em->stream_var = saved;
        em->stream_base = saved_var;
        line(em, "_m%d |= _cont%d;", id, id);
        em->memos.count = 0;
        gang_list(em, list_of(s->latch));
        em->memos.count = 0;
        line(em, "_ib%d = (%s)(_ib%d + (%s)%s);", id, T, id, T, ex(em, step, -1));
        line(em, "if (_m%d != ENK_FULL) break; /* lanes left: the general loop goes on */", id);
        CLOSE();
        CLOSE();
    }
    OPEN("while (_m%d) {", id);
    line(em, "_cont%d = 0;", id);
    em->memos.count = 0;
    gang_list(em, list_of(s->body));
    line(em, "_m%d |= _cont%d;", id, id);
    if (s->latch) {
        em->memos.count = 0;
        gang_list(em, list_of(s->latch));
    }
    CLOSE();
    em->loops.count--;
    em->mask = outer;
    line(em, "%s = _brk%d;", outer, id);
    CLOSE();
}

/* ---- SIMD-group and quad-group functions -------------------------------------------- */
static const char *identity_of(emitter *em, ir_intrinsic i, const ir_type *t) {
    bool f = ir_is_float(t);
    switch (i) {
    case IR_I_SIMD_PRODUCT: case IR_I_QUAD_PRODUCT:
    case IR_I_SIMD_PREFIX_INCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_INCLUSIVE_PRODUCT:
    case IR_I_SIMD_PREFIX_EXCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_EXCLUSIVE_PRODUCT:
        return f ? "1.0f" : "1";
    case IR_I_SIMD_MIN: case IR_I_QUAD_MIN:
        return f ? "INFINITY" : S(em, "(%s)%s", scalar_ctype(t->kind), ir_is_signed(t) ? S(em, "INT%d_MAX", int_bits(t)) : S(em, "UINT%d_MAX", int_bits(t)));
    case IR_I_SIMD_MAX: case IR_I_QUAD_MAX:
        return f ? "(-INFINITY)" : (ir_is_signed(t) ? S(em, "(%s)INT%d_MIN", scalar_ctype(t->kind), int_bits(t)) : "0");
    case IR_I_SIMD_AND: case IR_I_QUAD_AND:
        return t->kind == IR_T_BOOL ? "true" : S(em, "(%s)~(%s)0", scalar_ctype(t->kind), wide_unsigned(t));
    default: return f ? "0.0f" : "0";
    }
}

static const char *combine(emitter *em, ir_intrinsic i, const ir_type *t, const char *acc, const char *x) {
    switch (i) {
    case IR_I_SIMD_SUM: case IR_I_QUAD_SUM:
    case IR_I_SIMD_PREFIX_INCLUSIVE_SUM: case IR_I_QUAD_PREFIX_INCLUSIVE_SUM:
    case IR_I_SIMD_PREFIX_EXCLUSIVE_SUM: case IR_I_QUAD_PREFIX_EXCLUSIVE_SUM:
        return ir_is_float(t) ? S(em, "%s + %s", acc, x) : binary_expr(em, IR_OP_ADD, t, acc, x);
    case IR_I_SIMD_PRODUCT: case IR_I_QUAD_PRODUCT:
    case IR_I_SIMD_PREFIX_INCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_INCLUSIVE_PRODUCT:
    case IR_I_SIMD_PREFIX_EXCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_EXCLUSIVE_PRODUCT:
        return ir_is_float(t) ? S(em, "%s * %s", acc, x) : binary_expr(em, IR_OP_MUL, t, acc, x);
    case IR_I_SIMD_MIN: case IR_I_QUAD_MIN:
        return ir_is_float(t) ? S(em, "fminf(%s, %s)", acc, x) : S(em, "enk_min_%s(%s, %s)", suffix_of(t), acc, x);
    case IR_I_SIMD_MAX: case IR_I_QUAD_MAX:
        return ir_is_float(t) ? S(em, "fmaxf(%s, %s)", acc, x) : S(em, "enk_max_%s(%s, %s)", suffix_of(t), acc, x);
    case IR_I_SIMD_AND: case IR_I_QUAD_AND: return S(em, "(%s)(%s & %s)", scalar_ctype(t->kind), acc, x);
    case IR_I_SIMD_OR: case IR_I_QUAD_OR: return S(em, "(%s)(%s | %s)", scalar_ctype(t->kind), acc, x);
    default: return S(em, "(%s)(%s ^ %s)", scalar_ctype(t->kind), acc, x);
    }
}

/* intrinsic kinds shared by the simd_ and quad_ families */
typedef enum group_op {
    G_REDUCE, G_PREFIX_INCL, G_PREFIX_EXCL, G_SHUFFLE, G_UP, G_DOWN, G_XOR, G_ROT_UP, G_ROT_DOWN,
    G_FILL_UP, G_FILL_DOWN, G_BROADCAST_FIRST, G_BALLOT, G_ALL, G_ANY, G_IS_FIRST, G_ACTIVE
} group_op;

static group_op group_op_of(ir_intrinsic i) {
    switch (i) {
    case IR_I_SIMD_PREFIX_INCLUSIVE_SUM: case IR_I_SIMD_PREFIX_INCLUSIVE_PRODUCT:
    case IR_I_QUAD_PREFIX_INCLUSIVE_SUM: case IR_I_QUAD_PREFIX_INCLUSIVE_PRODUCT: return G_PREFIX_INCL;
    case IR_I_SIMD_PREFIX_EXCLUSIVE_SUM: case IR_I_SIMD_PREFIX_EXCLUSIVE_PRODUCT:
    case IR_I_QUAD_PREFIX_EXCLUSIVE_SUM: case IR_I_QUAD_PREFIX_EXCLUSIVE_PRODUCT: return G_PREFIX_EXCL;
    case IR_I_SIMD_SHUFFLE: case IR_I_SIMD_BROADCAST: case IR_I_QUAD_SHUFFLE: case IR_I_QUAD_BROADCAST: return G_SHUFFLE;
    case IR_I_SIMD_SHUFFLE_UP: case IR_I_QUAD_SHUFFLE_UP: return G_UP;
    case IR_I_SIMD_SHUFFLE_DOWN: case IR_I_QUAD_SHUFFLE_DOWN: return G_DOWN;
    case IR_I_SIMD_SHUFFLE_XOR: case IR_I_QUAD_SHUFFLE_XOR: return G_XOR;
    case IR_I_SIMD_SHUFFLE_ROTATE_UP: case IR_I_QUAD_SHUFFLE_ROTATE_UP: return G_ROT_UP;
    case IR_I_SIMD_SHUFFLE_ROTATE_DOWN: case IR_I_QUAD_SHUFFLE_ROTATE_DOWN: return G_ROT_DOWN;
    case IR_I_SIMD_SHUFFLE_AND_FILL_UP: case IR_I_QUAD_SHUFFLE_AND_FILL_UP: return G_FILL_UP;
    case IR_I_SIMD_SHUFFLE_AND_FILL_DOWN: case IR_I_QUAD_SHUFFLE_AND_FILL_DOWN: return G_FILL_DOWN;
    case IR_I_SIMD_BROADCAST_FIRST: case IR_I_QUAD_BROADCAST_FIRST: return G_BROADCAST_FIRST;
    case IR_I_SIMD_BALLOT: case IR_I_QUAD_BALLOT: return G_BALLOT;
    case IR_I_SIMD_ALL: case IR_I_QUAD_ALL: return G_ALL;
    case IR_I_SIMD_ANY: case IR_I_QUAD_ANY: return G_ANY;
    case IR_I_SIMD_IS_FIRST: case IR_I_QUAD_IS_FIRST: return G_IS_FIRST;
    case IR_I_SIMD_ACTIVE_THREADS_MASK: case IR_I_QUAD_ACTIVE_THREADS_MASK: return G_ACTIVE;
    default: return G_REDUCE;
    }
}

/* Over the active lanes of each segment of `width` lanes (32: the SIMD group, 4: quads).
 * Arguments are first copied to temporaries, so a result may overwrite its own source. */
static void emit_group_op(emitter *em, const ir_stmt *s, int width) {
    group_op op = group_op_of(s->intrinsic);
    const char *M = em->mask;
    const char *res = s->result ? var_lvalue(em, s->result) : NULL;
    const ir_type *rt = s->result ? s->result->type : NULL;
    const char *segmask = width == 32 ? "0xffffffffu" : "0xfu";
    const char *args[4] = {0};
    for (int k = 0; k < s->arg_count && k < 4; k++) args[k] = materialize(em, s->args[k]);
    OPEN("if (%s) { /* %s: %s */", M, ir_intrinsic_name(s->intrinsic), source_note(em, s->loc));
    OPEN("for (int _q = 0; _q < 32; _q += %d) {", width);
    line(em, "uint32_t _sm = (%s >> _q) & %s; /* active lanes of this segment */", M, segmask);
    line(em, "if (!_sm) continue;");
    switch (op) {
    case G_REDUCE:
    case G_PREFIX_INCL:
    case G_PREFIX_EXCL: {
        const ir_type *t = s->args[0]->type, *et = ir_scalar_of(t);
        int n = t->kind == IR_T_VEC ? (int)t->count : 1;
        for (int c = 0; c < n; c++) {
            const char *sel = t->kind == IR_T_VEC ? S(em, ".v[%d]", c) : "";
            const char *x = from_storage(em, et, S(em, "%s[l]%s", args[0], sel));
            OPEN("{");
            line(em, "%s _r = %s;", compute_ctype(et), identity_of(em, s->intrinsic, et));
            const char *comb = combine(em, s->intrinsic, et, "_r", "_x");
            const char *target = res ? S(em, "%s%s", res, sel) : NULL;
            if (op == G_REDUCE) {
                line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) { %s _x = %s; _r = %s; }", width,
                     M, compute_ctype(et), x, comb);
                if (target)
                    line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = %s;", width, M,
                         target, to_storage(em, et, rounded(em, et, "_r")));
            } else {
                OPEN("for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) {", width, M);
                line(em, "%s _x = %s;", compute_ctype(et), x);
                if (op == G_PREFIX_INCL) line(em, "_r = %s;", comb);
                if (target) line(em, "%s = %s;", target, to_storage(em, et, rounded(em, et, "_r")));
                if (op == G_PREFIX_EXCL) line(em, "_r = %s;", comb);
                CLOSE();
            }
            CLOSE();
        }
        break;
    }
    case G_SHUFFLE: case G_UP: case G_DOWN: case G_XOR: case G_ROT_UP: case G_ROT_DOWN:
    case G_FILL_UP: case G_FILL_DOWN: {
        bool fill = op == G_FILL_UP || op == G_FILL_DOWN;
        const char *amount = fill ? args[2] : args[1];
        OPEN("for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) {", width, M);
        line(em, "int _i = l - _q; /* lane within the segment */");
        line(em, "uint32_t _k = (uint32_t)%s[l];", amount);
        switch (op) {
        case G_SHUFFLE: line(em, "int _src = _q + (int)(_k & %du);", width - 1); break;
        case G_UP: line(em, "int _src = _k <= (uint32_t)_i ? l - (int)_k : l; /* out of range: own value */"); break;
        case G_DOWN: line(em, "int _src = (uint32_t)_i + _k < %du ? l + (int)_k : l;", width); break;
        case G_XOR: line(em, "int _src = _q + (int)(((uint32_t)_i ^ _k) & %du);", width - 1); break;
        case G_ROT_UP: line(em, "int _src = _q + (int)(((uint32_t)_i - _k) & %du);", width - 1); break;
        case G_ROT_DOWN: line(em, "int _src = _q + (int)(((uint32_t)_i + _k) & %du);", width - 1); break;
        default: {
            /* segments of `modulo` lanes; lanes whose source runs off the segment take
             * `filling` from the other end of it */
            line(em, "uint32_t _mod = %s;", s->arg_count > 3 ? S(em, "(uint32_t)%s[l]", args[3]) : S(em, "%du", width));
            line(em, "if (_mod == 0 || _mod > %du) _mod = %du;", width, width);
            line(em, "int _p = (int)((uint32_t)_i %% _mod), _sb = l - _p;");
            if (op == G_FILL_UP) {
                line(em, "bool _own = (uint32_t)_p >= _k;");
                line(em, "int _src = _own ? l - (int)_k : _sb + (int)((uint32_t)_p + _mod - _k) %% (int)_mod;");
            } else {
                line(em, "bool _own = (uint32_t)_p + _k < _mod;");
                line(em, "int _src = _own ? l + (int)_k : _sb + (int)(((uint32_t)_p + _k - _mod) %% _mod);");
            }
            line(em, "_src &= 31;");
            if (res) line(em, "%s = _own ? %s[_src] : %s[_src];", res, args[0], args[1]);
            break;
        }
        }
        if (em->checked) { /* reading a lane that does not run this call is undefined */
            const char *site = check_site(em, s->loc, CPU_CHECK_SHUFFLE, 0, -1, NULL, ir_intrinsic_name(s->intrinsic));
            const char *range = op == G_SHUFFLE ? S(em, "_k >= %du ? (int64_t)_k : ", width)
                                : op == G_XOR ? S(em, "((uint32_t)_i ^ _k) >= %du ? (int64_t)((uint32_t)_i ^ _k) : ", width)
                                              : NULL;
            if (range) {
                line(em, "int64_t _far = %s-1;", range);
                line(em, "if (_far >= 0) _cg->api->lane(_cg->state, %s, _sg, l, _far, %d);", site, CPU_CHECK_LANE_OUT_OF_RANGE);
                line(em, "else if (!ENK_ON(%s, _src & 31)) _cg->api->lane(_cg->state, %s, _sg, l, _src & 31, %d);", M, site,
                     CPU_CHECK_LANE_INACTIVE);
            } else {
                line(em, "if (!ENK_ON(%s, _src & 31)) _cg->api->lane(_cg->state, %s, _sg, l, _src & 31, %d);", M, site,
                     CPU_CHECK_LANE_INACTIVE);
            }
        }
        if (!fill && res) line(em, "%s = %s[_src & 31];", res, args[0]);
        CLOSE();
        break;
    }
    case G_BROADCAST_FIRST:
        if (res) line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = %s[_q + __builtin_ctz(_sm)];",
                      width, M, res, args[0]);
        break;
    case G_IS_FIRST:
        if (res) line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = (l == _q + __builtin_ctz(_sm));",
                      width, M, res);
        break;
    case G_BALLOT: case G_ALL: case G_ANY: case G_ACTIVE: {
        if (op == G_ACTIVE) line(em, "uint64_t _v = _sm;");
        else {
            line(em, "uint64_t _v = 0;");
            line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l) && %s[l]) _v |= 1ull << (l - _q);",
                 width, M, args[0]);
        }
        const char *val = op == G_ALL ? "(_v == _sm)" : op == G_ANY ? "(_v != 0)" : "_v";
        if (res) line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = (%s)%s;", width, M,
                      res, ctype(em, rt), val);
        break;
    }
    }
    CLOSE();
    CLOSE();
}

/* ---- atomics ------------------------------------------------------------------------ */
static void emit_atomic(emitter *em, const ir_stmt *s) {
    const ir_type *at = s->args[0]->type->elem; /* the atomic type */
    const ir_type *t = at && at->kind == IR_T_ATOMIC ? at->elem : at;
    const char *ct = ctype(em, t);
    const char *vals[3] = {0};
    for (int k = 1; k < s->arg_count && k < 3; k++) vals[k] = materialize(em, s->args[k]);
    const char *res = s->result ? var_lvalue(em, s->result) : NULL;
    const char *ptr = ex(em, s->args[0], -1);
    OPEN("{ /* %s: %s */", ir_intrinsic_name(s->intrinsic), source_note(em, s->loc));
    int id = fresh(em);
    line(em, "uintptr_t _a%d[32];", id);
    line(em, "for (int l = 0; l < 32; l++) _a%d[l] = (uintptr_t)(%s);", id, ptr);
    const char *lanes = access_lanes(em, s->args[0], t, S(em, "_a%d", id),
                                     s->intrinsic == IR_I_ATOMIC_LOAD    ? ACCESS_ATOMIC_LOAD
                                     : s->intrinsic == IR_I_ATOMIC_STORE ? ACCESS_ATOMIC_STORE
                                                                         : ACCESS_ATOMIC);
    OPEN("for (int l = 0; l < 32; l++) if (ENK_ON(%s, l)) { /* lanes in order */", lanes);
    line(em, "%s *_p = (%s *)_a%d[l];", ct, ct, id);
    const char *v = vals[1] ? S(em, "%s[l]", vals[1]) : "0";
    const char *r = NULL;
    bool is_float = t->kind == IR_T_F32;
    switch (s->intrinsic) {
    case IR_I_ATOMIC_LOAD:
        line(em, "%s _r; __atomic_load(_p, &_r, __ATOMIC_RELAXED);", ct);
        r = "_r";
        break;
    case IR_I_ATOMIC_STORE:
        line(em, "%s _v = %s; __atomic_store(_p, &_v, __ATOMIC_RELAXED);", ct, v);
        break;
    case IR_I_ATOMIC_EXCHANGE:
        line(em, "%s _v = %s, _r; __atomic_exchange(_p, &_v, &_r, __ATOMIC_RELAXED);", ct, v);
        r = "_r";
        break;
    case IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK:
        line(em, "%s _v = %s[l];", ct, vals[2] ? vals[2] : "_missing");
        line(em, "bool _r = __atomic_compare_exchange(_p, (%s *)%s, &_v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);",
             ct, v);
        r = "_r";
        break;
    case IR_I_ATOMIC_FETCH_ADD:
    case IR_I_ATOMIC_FETCH_SUB:
        if (is_float)
            line(em, "%s _r = enk_atomic_add_f32(_p, %s%s);", ct,
                 s->intrinsic == IR_I_ATOMIC_FETCH_SUB ? "-" : "", v);
        else
            line(em, "%s _r = __atomic_fetch_%s(_p, %s, __ATOMIC_RELAXED);", ct,
                 s->intrinsic == IR_I_ATOMIC_FETCH_ADD ? "add" : "sub", v);
        r = "_r";
        break;
    case IR_I_ATOMIC_FETCH_MIN:
    case IR_I_ATOMIC_FETCH_MAX:
        line(em, "%s _r = enk_atomic_%s_%s(_p, %s);", ct, s->intrinsic == IR_I_ATOMIC_FETCH_MIN ? "min" : "max",
             suffix_of(t), v);
        r = "_r";
        break;
    default: {
        const char *name = s->intrinsic == IR_I_ATOMIC_FETCH_AND ? "and"
                           : s->intrinsic == IR_I_ATOMIC_FETCH_OR ? "or" : "xor";
        line(em, "%s _r = __atomic_fetch_%s(_p, %s, __ATOMIC_RELAXED);", ct, name, v);
        r = "_r";
        break;
    }
    }
    if (res && r) line(em, "%s = (%s)%s;", res, ctype(em, s->result->type), r);
    CLOSE();
    CLOSE();
}

/* ---- simdgroup_matrix: uniform over the SIMD group, 64 elements spread over the lanes -- */
static const char *gather_matrix(emitter *em, const ir_expr *m) {
    const ir_type *et = m->type->elem;
    const char *name = S(em, "_mx%d", fresh(em));
    const char *lv = ir_is_place(m) ? lvalue(em, m) : S(em, "%s[l]", materialize(em, m));
    line(em, "float %s[64];", name);
    line(em, "for (int l = 0; l < 32; l++) { %s[2 * l] = %s; %s[2 * l + 1] = %s; }", name,
         from_storage(em, et, S(em, "%s.e[0]", lv)), name, from_storage(em, et, S(em, "%s.e[1]", lv)));
    return name;
}

static void scatter_matrix(emitter *em, const ir_var *v, const char *from) {
    if (!v) return;
    const ir_type *et = v->type->elem;
    const char *lv = var_lvalue(em, v);
    line(em, "for (int l = 0; l < 32; l++) { %s.e[0] = %s; %s.e[1] = %s; }", lv,
         to_storage(em, et, S(em, "%s[2 * l]", from)), lv, to_storage(em, et, S(em, "%s[2 * l + 1]", from)));
}

/* the uniform arguments (pointer, elements per row, origin, transpose) of load/store, read
 * from the first active lane */
static void matrix_addressing(emitter *em, const ir_stmt *s, int first) {
    const ir_expr *ptr = s->args[first];
    const char *p = ex(em, ptr, -1);
    const char *epr = s->arg_count > first + 1 ? ex(em, s->args[first + 1], -1) : "8";
    const ir_expr *origin = s->arg_count > first + 2 ? s->args[first + 2] : NULL;
    const char *ox = origin ? (origin->type->kind == IR_T_VEC ? ex(em, origin, 0) : ex(em, origin, -1)) : "0";
    const char *oy = origin ? (origin->type->kind == IR_T_VEC ? ex(em, origin, 1) : "0") : "0";
    const char *tr = s->arg_count > first + 3 ? ex(em, s->args[first + 3], -1) : "false";
    line(em, "int l = enk_first_lane(%s);", em->mask);
    line(em, "%s _p = %s;", ctype(em, ptr->type), p);
    line(em, "uint64_t _epr = (uint64_t)(%s), _ox = (uint64_t)(%s), _oy = (uint64_t)(%s);", epr, ox, oy);
    line(em, "bool _tr = %s;", tr);
}

/* checked mode: the 64 element addresses of a simdgroup_load/store, as lane l's elements
 * 2l and 2l+1 (the layout gather_matrix uses), through the access hook; `_mok[0..1]` then
 * holds the elements that may be touched. False when unchecked or thread memory. */
static bool matrix_check(emitter *em, const ir_stmt *s, int first, int op) {
    const ir_expr *ptr = s->args[first];
    if (!em->checked || ptr->type->kind != IR_T_PTR || ptr->type->space == IR_SPACE_THREAD) return false;
    const char *site = check_site(em, s->loc, op, (int)ptr->type->space, pointer_object(em, ptr),
                                  S(em, "sizeof(%s)", ctype(em, ptr->type->elem)), root_name(ptr));
    line(em, "uintptr_t _ma[2][32]; uint32_t _mok[2];");
    line(em, "for (int _e = 0; _e < 64; _e++) { int r = _e / 8, c = _e %% 8;");
    line(em, "    _ma[_e & 1][_e >> 1] = (uintptr_t)(_tr ? &_p[(_oy + c) * _epr + _ox + r] : &_p[(_oy + r) * _epr + _ox + c]); }");
    line(em, "for (int _h = 0; _h < 2; _h++) _mok[_h] = _cg->api->access(_cg->state, %s, _sg, ENK_FULL, _ma[_h], NULL);", site);
    return true;
}

static void emit_matrix(emitter *em, const ir_stmt *s) {
    OPEN("if (%s) { /* %s: %s */", em->mask, ir_intrinsic_name(s->intrinsic), source_note(em, s->loc));
    switch (s->intrinsic) {
    case IR_I_MATRIX_FILL: {
        line(em, "float _mf[64];");
        OPEN("{");
        line(em, "int l = enk_first_lane(%s);", em->mask);
        line(em, "float _v = (float)(%s);", ex(em, s->args[0], -1));
        line(em, "for (int e = 0; e < 64; e++) _mf[e] = _v;");
        CLOSE();
        scatter_matrix(em, s->result, "_mf");
        break;
    }
    case IR_I_MATRIX_LOAD: {
        const ir_type *et = s->args[0]->type->elem;
        line(em, "float _ml[64];");
        OPEN("{");
        matrix_addressing(em, s, 0);
        if (matrix_check(em, s, 0, CPU_CHECK_LOAD)) {
            line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++)");
            line(em, "    _ml[r * 8 + c] = _mok[(r * 8 + c) & 1] >> ((r * 8 + c) >> 1) & 1u ? %s : 0.0f;",
                 from_storage(em, et, "(_tr ? _p[(_oy + c) * _epr + _ox + r] : _p[(_oy + r) * _epr + _ox + c])"));
        } else {
            line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++)");
            line(em, "    _ml[r * 8 + c] = %s;",
                 from_storage(em, et, "(_tr ? _p[(_oy + c) * _epr + _ox + r] : _p[(_oy + r) * _epr + _ox + c])"));
        }
        CLOSE();
        scatter_matrix(em, s->result, "_ml");
        break;
    }
    case IR_I_MATRIX_STORE: {
        const ir_type *et = s->args[1]->type->elem;
        const char *mx = gather_matrix(em, s->args[0]);
        OPEN("{");
        matrix_addressing(em, s, 1);
        if (matrix_check(em, s, 1, CPU_CHECK_STORE))
            line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) if (_mok[(r * 8 + c) & 1] >> ((r * 8 + c) >> 1) & 1u)");
        else
            line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++)");
        line(em, "    *(_tr ? &_p[(_oy + c) * _epr + _ox + r] : &_p[(_oy + r) * _epr + _ox + c]) = %s;",
             to_storage(em, et, S(em, "%s[r * 8 + c]", mx)));
        CLOSE();
        break;
    }
    case IR_I_MATRIX_MULTIPLY:
    case IR_I_MATRIX_MULTIPLY_ACCUMULATE: {
        const char *a = gather_matrix(em, s->args[0]);
        const char *b = gather_matrix(em, s->args[1]);
        const char *c = s->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE && s->arg_count > 2
                            ? gather_matrix(em, s->args[2]) : "NULL";
        line(em, "float _md[64];");
        line(em, "enk_mat_mul(_md, %s, %s, %s);", a, b, c);
        scatter_matrix(em, s->result, "_md");
        break;
    }
    default: break;
    }
    CLOSE();
}

static void gang_stmt(emitter *em, const ir_stmt *s) {
    if (em->failed) return;
    em->memos.count = 0;
    switch (s->kind) {
    case IR_S_BLOCK:
        OPEN("{");
        gang_list(em, list_of((ir_stmt *)s));
        CLOSE();
        break;
    case IR_S_DECL:
        if (s->value) {
            ir_expr place = var_expr(s->var);
            line(em, "/* %s */", source_note(em, s->loc));
            OPEN("{");
            emit_assign(em, &place, s->value);
            CLOSE();
        }
        break;
    case IR_S_ASSIGN:
        line(em, "/* %s */", source_note(em, s->loc));
        OPEN("{");
        emit_assign(em, s->place, s->value);
        CLOSE();
        break;
    case IR_S_IF: gang_if(em, s); break;
    case IR_S_LOOP: gang_loop(em, s); break;
    case IR_S_BREAK:
    case IR_S_CONTINUE: {
        loop_entry *le = find_loop(em, s->target);
        if (!le) {
            fail(em, s->loc, "break/continue outside its loop");
            break;
        }
        const char *set = S(em, "_%s%d%s", s->kind == IR_S_BREAK ? "brk" : "cont", le->id,
                            le->tg_level ? "[_sg]" : "");
        line(em, "%s |= %s; %s = 0; /* %s */", set, em->mask, em->mask, s->kind == IR_S_BREAK ? "break" : "continue");
        break;
    }
    case IR_S_RETURN:
        if (em->checked) line(em, "_chk_ret[_sg] |= %s; /* returned threads are exempt from barriers */", em->mask);
        line(em, "%s = 0; /* return: these threads are done (%s) */", em->mask, source_note(em, s->loc));
        break;
    case IR_S_INTRINSIC:
        switch (ir_intrinsic_class_of(s->intrinsic)) {
        case IR_IC_SIMD: emit_group_op(em, s, 32); break;
        case IR_IC_QUAD: emit_group_op(em, s, 4); break;
        case IR_IC_ATOMIC: emit_atomic(em, s); break;
        case IR_IC_MATRIX: emit_matrix(em, s); break;
        case IR_IC_BARRIER:
            line(em, "/* simdgroup_barrier: the gang runs in lockstep (%s) */", source_note(em, s->loc));
            if (em->checked)
                line(em, "_cg->api->simd_barrier(_cg->state, %s, _sg, %s, _chk_ret[_sg]);",
                     check_site(em, s->loc, CPU_CHECK_SIMD_BARRIER, 0, -1, NULL, "simdgroup_barrier"), em->mask);
            break;
        default: fail(em, s->loc, "intrinsic statement %s", ir_intrinsic_name(s->intrinsic));
        }
        break;
    case IR_S_CALL: fail(em, s->loc, "a call statement survived inlining"); break;
    }
}

/* ---- threadgroup level ---------------------------------------------------------------- */
static _Thread_local bool *collect_used; /* the set collect_use fills */
static void collect_use(emitter *em, const ir_var *v, int region) {
    (void)region;
    if (v->storage != IR_VAR_CONSTANT && v->id >= 0 && v->id < em->var_count) collect_used[v->id] = true;
}

/* the per-lane storage a region uses, inside its SIMD-group loop */
static void region_vars(emitter *em, const bool *used) {
    for (int i = 0; i < em->var_count; i++) {
        if (!used[i]) continue;
        var_info *vi = &em->vars[i];
        const ir_var *v = NULL;
        for (int k = 0; k < em->f->locals.count && !v; k++)
            if (em->f->locals.items[k]->id == i) v = em->f->locals.items[k];
        for (int k = 0; k < em->f->param_count && !v; k++)
            if (em->f->params[k]->id == i) v = em->f->params[k];
        if (!v) continue;
        /* zeroed: lanes a mask leaves unwritten still flow through blends and compares, and
         * defined values keep runs deterministic (and valgrind quiet) */
        if (vi->kind == VK_GANG) line(em, "%s %s[32] = {0};", ctype(em, v->type), vi->cname);
        else if (vi->kind == VK_SCALAR) line(em, "%s %s = {0}; /* uniform */", ctype(em, v->type), vi->cname);
        else if (vi->kind == VK_CONTEXT)
            line(em, "%s *%s = _ctx->%s + _sg * 32;", ctype(em, v->type), vi->cname, vi->cname);
        else if (vi->kind == VK_LANE_ATTR) {
            line(em, "%s %s[32];", ctype(em, v->type), vi->cname);
            line(em, "for (int l = 0; l < 32; l++) { %s }", attr_init(em, v, S(em, "%s[l]", vi->cname)));
        }
    }
}

/* the head of a region: its SIMD-group loop, the mask, and the per-lane storage it uses */
static void region_open(emitter *em, const char *note, bool *used) {
    int region = em->region_next++;
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) { /* region %d: %s */", region, note);
    line(em, "uint32_t _m = _act[_sg];");
    line(em, "if (!_m) continue;");
    region_vars(em, used);
    em->mask = "_m";
}

static bool *vars_used(emitter *em, stmt_list list, int start, int end) {
    bool *used = en_alloc(&em->arena, (size_t)em->var_count + 1);
    collect_used = used;
    for (int i = start; i < end; i++) walk_stmt_vars(em, list_at(list, i), collect_use, 0);
    return used;
}

static void emit_region(emitter *em, stmt_list list, int start, int end) {
    int count = end - start;
    ir_stmt **stmts = en_alloc(&em->arena, sizeof(ir_stmt *) * (size_t)count);
    for (int i = 0; i < count; i++) stmts[i] = list_at(list, start + i);
    bool *used = vars_used(em, list, start, end);
    int first = stmts[0]->loc.line, last = stmts[count - 1]->loc.line;
    region_open(em, first == last ? S(em, "line %d", first) : S(em, "lines %d-%d", first, last), used);
    for (int i = 0; i < count; i++) {
        gang_stmt(em, stmts[i]);
        if (stmts[i]->kind == IR_S_BREAK || stmts[i]->kind == IR_S_CONTINUE || stmts[i]->kind == IR_S_RETURN)
            break;
    }
    line(em, "_act[_sg] = _m;");
    CLOSE();
}

/* ---- interleaved streaming loops ------------------------------------------------------ */
/* Why: a region runs its SIMD groups one after another, so in a grid-stride loop each SIMD
 * group walks the whole array alone, reading 128 bytes every grid_size elements: every read
 * opens a new DRAM page and the hardware prefetchers see no stream. When the loop is a
 * region of its own, one step of every SIMD group in turn makes the threadgroup read
 * _nsg * 128 contiguous bytes per step. Any order of the SIMD groups' steps is a schedule
 * that Metal allows between barriers. */

/* true when `s` leaves `loop` other than through the loop's own test: a return anywhere, or
 * a break or continue aimed at the loop */
static bool leaves_loop(const ir_stmt *s, const ir_stmt *loop) {
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (leaves_loop(s->stmts[i], loop)) return true;
        return false;
    case IR_S_IF: return leaves_loop(s->then_s, loop) || leaves_loop(s->else_s, loop);
    case IR_S_LOOP: return leaves_loop(s->body, loop) || leaves_loop(s->latch, loop);
    case IR_S_RETURN: return true;
    case IR_S_BREAK: case IR_S_CONTINUE: return s->target == loop;
    default: return false;
    }
}

/* a streaming loop (streaming_loop) whose every step ends with all of its lanes still in
 * it: a SIMD group that enters with a full mask keeps it, step after step */
static bool interleavable(emitter *em, const ir_stmt *s) {
    const ir_expr *limit, *step;
    if (em->checked || s->kind != IR_S_LOOP || !streaming_loop(em, s, &limit, &step)) return false;
    stmt_list body = list_of(s->body);
    for (int i = 1; i < body.count; i++) /* the first statement is the loop's own test */
        if (leaves_loop(list_at(body, i), s)) return false;
    return !leaves_loop(s->latch, s);
}

/* the loops to interleave: statements of barrier-free stretches, at any threadgroup level */
static void choose_interleaved(emitter *em, stmt_list list) {
    for (int i = 0; i < list.count; i++) {
        ir_stmt *s = list_at(list, i);
        if (!contains_barrier(s)) {
            if (interleavable(em, s)) EN_PUSH(&em->arena, em->interleaved, s);
        } else if (s->kind == IR_S_BLOCK) {
            choose_interleaved(em, list_of(s));
        } else if (s->kind == IR_S_IF) {
            choose_interleaved(em, list_of(s->then_s));
            choose_interleaved(em, list_of(s->else_s));
        } else if (s->kind == IR_S_LOOP) {
            choose_interleaved(em, list_of(s->body));
            choose_interleaved(em, list_of(s->latch));
        }
    }
}

/* The interleaved phase, then the loop as an ordinary region, which finishes what the phase
 * left: the SIMD groups that did not qualify (a partial or narrowed mask, an index that is
 * not the lane's), and each qualifying one from its tail. Every SIMD group's state is its
 * own (the index and the values carried across steps live per thread: the loop is a region
 * of its own), so SIMD groups that stop at different steps hand over consistently. */
static void emit_interleaved_loop(emitter *em, stmt_list list, int at) {
    const ir_stmt *s = list_at(list, at);
    const ir_expr *limit = NULL, *step = NULL;
    const ir_var *index = streaming_loop(em, s, &limit, &step);
    if (!index || info_of(em, index)->kind != VK_CONTEXT) { /* then the ordinary region is all */
        emit_region(em, list, at, at + 1);
        return;
    }
    const char *iv = info_of(em, index)->cname, *T = scalar_ctype(index->type->kind);
    const char *max = ir_is_signed(index->type) ? "INT32_MAX" : "UINT32_MAX";
    int id = fresh(em);
    bool *used = vars_used(em, list, at, at + 1);
    OPEN("if (_nsg > 1) { /* SIMD groups interleaved: %s */", source_note(em, s->loc));
    line(em, "/* a SIMD group whose lanes are all in the loop with %s = %s[0] + lane steps in turn with the others */",
         index->name, index->name);
    line(em, "uint32_t _go%d[32], _live%d = 0;", id, id);
    line(em, "%s _ibs%d[32]; /* each SIMD group's %s[0]: its lanes are not stored until it stops */", T, id, index->name);
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
    line(em, "const %s *_i = _ctx->%s + _sg * 32;", T, iv);
    line(em, "_go%d[_sg] = _act[_sg] == ENK_FULL && enk_halves_consecutive_u32((const uint32_t *)_i) && _i[16] == (%s)(_i[0] + 16u);",
         id, T);
    line(em, "_ibs%d[_sg] = _i[0];", id);
    line(em, "_live%d += _go%d[_sg];", id, id);
    CLOSE();
    OPEN("while (_live%d) {", id);
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
    line(em, "if (!_go%d[_sg]) continue;", id);
    region_vars(em, used);
    line(em, "uint32_t _m = ENK_FULL;");
    em->mask = "_m";
    line(em, "%s _ib%d = _ibs%d[_sg];", T, id, id);
    em->memos.count = 0;
    const char *n = ex(em, limit, -1);
    OPEN("if (!(_ib%d <= (%s)(%s - 31) && (%s)(_ib%d + 31) < %s)) { /* a lane at the end: the tail */", id, T, max,
         T, id, n);
    line(em, "for (int l = 0; l < 32; l++) %s[l] = (%s)(_ib%d + (%s)l); /* the general loop goes on from here */",
         iv, T, id, T);
    line(em, "_go%d[_sg] = 0;", id);
    line(em, "_live%d--;", id);
    line(em, "continue;");
    CLOSE();
    em->implicit_var = index;
    em->implicit_base = S(em, "_ib%d", id);
    stmt_list body = list_of(s->body);
    body.count--; /* without the test, which the tail check above answered for all 32 lanes */
    if (body.items) body.items++;
    em->memos.count = 0;
    em->interleaving = true;
    gang_list(em, body);
    em->interleaving = false;
    em->implicit_var = NULL;
    em->memos.count = 0;
    line(em, "_ibs%d[_sg] = (%s)(_ib%d + (%s)%s); /* the latch: %s += step in every lane */", id, T, id, T,
         ex(em, step, -1), index->name);
    CLOSE();
    CLOSE();
    CLOSE();
    emit_region(em, list, at, at + 1);
}

static void tg_list(emitter *em, stmt_list list);

/* THE barrier choke point: on the cpu every earlier region has finished for every SIMD
 * group of this threadgroup before the next region starts, so a barrier is a boundary
 * between loops. Checked mode hooks divergence checks here. */
static void emit_barrier(emitter *em, const ir_stmt *s) {
    int flags = 0;
    if (s->arg_count > 0 && s->args[0]->kind == IR_E_CONST) flags = (int)s->args[0]->c.u;
    line(em, "/* threadgroup_barrier(%s%s%s%s) — %s */", flags & IR_MEM_DEVICE ? "mem_device " : "",
         flags & IR_MEM_THREADGROUP ? "mem_threadgroup " : "", flags & IR_MEM_TEXTURE ? "mem_texture " : "",
         flags ? "" : "mem_none", source_note(em, s->loc));
    if (em->checked)
        line(em, "_cg->api->barrier(_cg->state, %s, _act, _chk_ret, _nsg);",
             check_site(em, s->loc, CPU_CHECK_BARRIER, 0, -1, NULL, "threadgroup_barrier"));
}

static void tg_stmt(emitter *em, ir_stmt *s) {
    if (em->failed) return;
    switch (s->kind) {
    case IR_S_BLOCK: tg_list(em, list_of(s)); break;
    case IR_S_INTRINSIC: emit_barrier(em, s); break;
    case IR_S_IF: {
        int id = fresh(em);
        OPEN("{ /* if at threadgroup level (it contains a barrier): %s */", source_note(em, s->loc));
        line(em, "uint32_t _c%d[32] = {0}, _then%d[32], _else%d[32];", id, id, id);
        bool *used = en_alloc(&em->arena, (size_t)em->var_count + 1);
        collect_used = used;
        walk_expr_vars(em, s->cond, collect_use, 0);
        region_open(em, "the condition, per thread", used);
        em->memos.count = 0;
        const char *c = ex(em, s->cond, -1);
        line(em, "for (int l = 0; l < 32; l++) _c%d[_sg] |= (uint32_t)(%s) << l;", id, c);
        line(em, "_c%d[_sg] &= _m;", id);
        CLOSE();
        line(em, "bool _any_then%d = false, _any_else%d = false;", id, id);
        OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
        line(em, "_then%d[_sg] = _act[_sg] & _c%d[_sg];", id, id);
        line(em, "_else%d[_sg] = _act[_sg] & ~_c%d[_sg];", id, id);
        line(em, "_any_then%d |= _then%d[_sg] != 0;", id, id);
        line(em, "_any_else%d |= _else%d[_sg] != 0;", id, id);
        CLOSE();
        OPEN("if (_any_then%d) {", id);
        line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _then%d[_sg];", id);
        tg_list(em, list_of(s->then_s));
        line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _then%d[_sg] = _act[_sg];", id);
        CLOSE();
        if (s->else_s) {
            OPEN("if (_any_else%d) {", id);
            line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _else%d[_sg];", id);
            tg_list(em, list_of(s->else_s));
            line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _else%d[_sg] = _act[_sg];", id);
            CLOSE();
        }
        line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _then%d[_sg] | _else%d[_sg];", id, id);
        CLOSE();
        break;
    }
    case IR_S_LOOP: {
        int id = fresh(em);
        OPEN("{ /* loop at threadgroup level (it contains a barrier): %s */", source_note(em, s->loc));
        line(em, "uint32_t _brk%d[32] = {0}, _cont%d[32];", id, id);
        EN_PUSH(&em->arena, em->loops, ((loop_entry){s, true, id}));
        OPEN("for (;;) {");
        line(em, "uint32_t _any = 0;");
        line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _any |= _act[_sg];");
        line(em, "if (!_any) break; /* every thread has left the loop */");
        line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _cont%d[_sg] = 0;", id);
        tg_list(em, list_of(s->body));
        line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] |= _cont%d[_sg];", id);
        if (s->latch) tg_list(em, list_of(s->latch));
        CLOSE();
        em->loops.count--;
        line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _brk%d[_sg];", id);
        CLOSE();
        break;
    }
    default: fail(em, s->loc, "statement kind %d at threadgroup level", (int)s->kind);
    }
}

static void tg_list(emitter *em, stmt_list list) {
    int i = 0;
    while (i < list.count && !em->failed) {
        if (contains_barrier(list_at(list, i))) {
            tg_stmt(em, list_at(list, i++));
            continue;
        }
        int start = i;
        i = region_end(em, list, start);
        if (is_interleaved(em, list_at(list, start))) emit_interleaved_loop(em, list, start);
        else emit_region(em, list, start, i);
    }
}

/* ---- kernels -------------------------------------------------------------------------- */
static void classify_vars(emitter *em, const ir_func *f) {
    for (int i = 0; i < em->var_count; i++) em->vars[i] = (var_info){VK_UNUSED, -1, false, NULL};
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        var_info *vi = info_of(em, v);
        vi->cname = S(em, "%s_%d", ident(em, v->name), v->id);
        if (v->param_kind == IR_PARAM_ATTR)
            vi->kind = v->is_assigned ? VK_CONTEXT : attr_is_per_lane(v->attr) ? VK_LANE_ATTR : VK_UNIFORM;
        else vi->kind = v->is_assigned ? VK_CONTEXT : VK_UNIFORM;
    }
    for (int k = 0; k < f->threadgroup_vars.count; k++) {
        const ir_var *v = f->threadgroup_vars.items[k];
        var_info *vi = info_of(em, v);
        vi->kind = VK_THREADGROUP;
        vi->cname = S(em, "%s_%d", ident(em, v->name), v->id);
    }
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        var_info *vi = info_of(em, v);
        if (vi->kind != VK_UNUSED) continue;
        vi->cname = S(em, "%s_%d", ident(em, v->name), v->id);
        vi->kind = VK_GANG; /* refined after the region analysis */
    }
    em->region_next = 0;
    analyse_tg_list(em, list_of(f->body));
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        var_info *vi = info_of(em, v);
        if (vi->kind != VK_GANG) continue;
        /* a value the uniformity pass proved the same in every thread needs no lanes */
        bool scalar = v->uniform && !v->address_taken &&
                      (ir_is_scalar(v->type) || v->type->kind == IR_T_VEC ||
                       /* a thread-space address differs per thread here, whatever it is on a GPU */
                       (v->type->kind == IR_T_PTR && v->type->space != IR_SPACE_THREAD));
        if (scalar) vi->kind = vi->multi ? VK_SCALAR_SG : VK_SCALAR;
        else if (vi->multi) vi->kind = VK_CONTEXT;
    }
}

/* each local's declaration value, for lane_form() to see through `uint row = pos.y;` */
static void collect_inits(emitter *em, const ir_stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) collect_inits(em, s->stmts[i]);
        break;
    case IR_S_DECL:
        if (s->value && s->var->id >= 0 && s->var->id < em->var_count) em->inits[s->var->id] = s->value;
        break;
    case IR_S_IF: collect_inits(em, s->then_s); collect_inits(em, s->else_s); break;
    case IR_S_LOOP: collect_inits(em, s->body); collect_inits(em, s->latch); break;
    default: break;
    }
}

static bool uses_position_table(const ir_func *f) {
    for (int k = 0; k < f->param_count; k++)
        if (f->params[k]->param_kind == IR_PARAM_ATTR &&
            (f->params[k]->attr == IR_ATTR_THREAD_POSITION_IN_GRID ||
             f->params[k]->attr == IR_ATTR_THREAD_POSITION_IN_THREADGROUP))
            return true;
    return false;
}

static void emit_kernel(emitter *em, const ir_func *f, int index, en_buf *out) {
    em->f = f;
    em->var_count = f->next_var_id > 0 ? f->next_var_id : 1;
    em->vars = en_alloc(&em->arena, sizeof(var_info) * (size_t)em->var_count);
    em->loops.count = 0;
    em->prefetch_sites = 0;
    em->inits = en_alloc(&em->arena, sizeof(const ir_expr *) * (size_t)em->var_count);
    for (int i = 0; i < em->var_count; i++) em->inits[i] = NULL;
    collect_inits(em, f->body);
    em->interleaved.count = 0;
    classify_vars(em, f);
    choose_interleaved(em, list_of(f->body));
    if (em->interleaved.count) classify_vars(em, f); /* again, with the regions cut at those loops */
    /* checked mode: the objects pointers of this kernel may point into (check_rt.h) */
    en_buf objects = {0};
    int object_count = 0;
    if (em->checked) {
        em->kernel_index = index;
        em->site_count = 0;
        em->object_of_var = en_alloc(&em->arena, sizeof(int) * (size_t)em->var_count);
        for (int i = 0; i < em->var_count; i++) em->object_of_var[i] = -1;
        for (int k = 0; k < f->param_count; k++) {
            const ir_var *v = f->params[k];
            if (v->param_kind != IR_PARAM_BUFFER && v->param_kind != IR_PARAM_THREADGROUP) continue;
            bool is_const = v->type->kind == IR_T_PTR && (v->type->is_const || v->type->space == IR_SPACE_CONSTANT);
            en_buf_printf(&objects, "    {%d, %d, %d, 0, 0, 0, %s},\n",
                          v->param_kind == IR_PARAM_BUFFER ? CPU_CHECK_OBJ_BUFFER : CPU_CHECK_OBJ_TG_DYNAMIC,
                          is_const, v->binding, c_string(em, v->name));
            if (v->id >= 0 && v->id < em->var_count) em->object_of_var[v->id] = object_count;
            object_count++;
        }
        for (int k = 0; k < f->threadgroup_vars.count; k++) {
            const ir_var *v = f->threadgroup_vars.items[k];
            const char *cn = info_of(em, v)->cname;
            en_buf_printf(&objects,
                          "    {%d, 0, -1, offsetof(struct enk_threadgroup_%d, %s), "
                          "sizeof(((struct enk_threadgroup_%d *)0)->%s), 0, %s},\n",
                          CPU_CHECK_OBJ_TG_STATIC, index, cn, index, cn, c_string(em, v->name));
            if (v->id >= 0 && v->id < em->var_count) em->object_of_var[v->id] = object_count;
            object_count++;
        }
        for (int k = 0; k < em->m->globals.count; k++) {
            const ir_var *v = em->m->globals.items[k];
            const char *cn = em->globals[v->id].cname;
            en_buf_printf(&objects, "    {%d, 1, -1, 0, sizeof(%s), &%s, %s},\n", CPU_CHECK_OBJ_CONSTANT, cn, cn,
                          c_string(em, v->name));
            em->object_of_global[v->id] = object_count++;
        }
        pointer_sources(em, f);
    }

    en_buf body = {0};
    em->out = &body;
    em->indent = 1;
    em->region_next = 0;
    /* per-thread copies of parameters the kernel assigns */
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        var_info *vi = info_of(em, v);
        if (vi->kind != VK_CONTEXT) continue;
        OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) { /* %s is assigned: a copy per thread */", v->name);
        line(em, "%s *%s = _ctx->%s + _sg * 32;", ctype(em, v->type), vi->cname, vi->cname);
        if (v->param_kind == IR_PARAM_ATTR)
            line(em, "for (int l = 0; l < 32; l++) { %s }", attr_init(em, v, S(em, "%s[l]", vi->cname)));
        else if (v->param_kind == IR_PARAM_THREADGROUP)
            line(em, "for (int l = 0; l < 32; l++) %s[l] = (%s)g->tg_dynamic[%d];", vi->cname, ctype(em, v->type), v->binding);
        else
            line(em, "for (int l = 0; l < 32; l++) %s[l] = (%s)g->buffers[%d];", vi->cname, ctype(em, v->type), v->binding);
        CLOSE();
    }
    em->region_next = 0;
    tg_list(em, list_of(f->body));
    em->out = out;

    /* context block: values that live across barriers, per thread */
    en_buf_printf(out, "\n/* ---- kernel %s (%s) ---- */\n", f->name, source_note(em, f->loc));
    en_buf_printf(out, "struct enk_context_%d { /* values live across barriers, per thread */\n", index);
    int context_fields = 0, tg_fields = 0;
    for (int pass = 0; pass < 2; pass++) {
        int count = pass == 0 ? f->param_count : f->locals.count;
        for (int k = 0; k < count; k++) {
            const ir_var *v = pass == 0 ? f->params[k] : f->locals.items[k];
            var_info *vi = info_of(em, v);
            if (vi->kind != VK_CONTEXT) continue;
            en_buf_printf(out, "    %s %s[%d];\n", ctype(em, v->type), vi->cname, CPU_MAX_THREADS);
            context_fields++;
        }
    }
    if (!context_fields) en_buf_puts(out, "    char _none;\n");
    en_buf_puts(out, "};\n");
    en_buf_printf(out, "struct enk_threadgroup_%d { /* `threadgroup` variables */\n", index);
    for (int k = 0; k < f->threadgroup_vars.count; k++) {
        const ir_var *v = f->threadgroup_vars.items[k];
        en_buf_printf(out, "    %s %s;\n", ctype(em, v->type), info_of(em, v)->cname);
        tg_fields++;
    }
    if (!tg_fields) en_buf_puts(out, "    char _none;\n");
    en_buf_puts(out, "};\n");
    en_buf_printf(out, "const size_t enk_kernel_%d_context = %s;\n", index,
                  context_fields ? S(em, "sizeof(struct enk_context_%d)", index) : "0");
    en_buf_printf(out, "const size_t enk_kernel_%d_tg_static = %s;\n", index,
                  tg_fields ? S(em, "sizeof(struct enk_threadgroup_%d)", index) : "0");
    if (em->checked) {
        en_buf_printf(out, "static const enk_check_object enk_objects_%d[] = { /* what pointers may point into */\n%s    {0}\n};\n",
                      index, objects.data ? objects.data : "");
        en_buf_printf(out, "static const enk_check_site enk_sites_%d[] = { /* file, line, col, op, space, object, size, what */\n%s    {0}\n};\n",
                      index, em->sites.data ? em->sites.data : "");
        em->sites.len = 0;
    }
    en_buf_free(&objects);
    en_buf_printf(out, "void enk_kernel_%d(const enk_group *g) {\n", index);
    en_buf_printf(out, "    struct enk_context_%d *_ctx = (struct enk_context_%d *)g->context;\n", index, index);
    en_buf_printf(out, "    struct enk_threadgroup_%d *_tg = (struct enk_threadgroup_%d *)g->tg_static;\n", index, index);
    en_buf_puts(out, "    (void)_ctx; (void)_tg;\n");
    en_buf_puts(out, "    const uint32_t _n = g->size[0] * g->size[1] * g->size[2]; /* real threads */\n");
    en_buf_puts(out, "    const uint32_t _dispatch_n = g->group_size[0] * g->group_size[1] * g->group_size[2];\n");
    en_buf_puts(out, "    const uint32_t _nsg = (_n + 31u) / 32u;\n");
    en_buf_puts(out, "    const bool _one_d = g->size[1] == 1 && g->size[2] == 1;\n");
    en_buf_puts(out, "    (void)_dispatch_n; (void)_one_d;\n");
    en_buf_puts(out, "    /* each half of a SIMD group lies in one row: lane-affine accesses apply */\n");
    en_buf_puts(out, "    const bool _aff = _one_d || g->size[0] % 16u == 0; (void)_aff;\n");
    if (uses_position_table(f)) {
        en_buf_puts(out, "    /* positions within the threadgroup, when it is not 1-D */\n");
        en_buf_puts(out, "    uint32_t _lpos[3][1024];\n");
        en_buf_puts(out, "    if (!_one_d)\n");
        en_buf_puts(out, "        for (uint32_t _i = 0; _i < _n; _i++) {\n");
        en_buf_puts(out, "            _lpos[0][_i] = _i % g->size[0];\n");
        en_buf_puts(out, "            _lpos[1][_i] = _i / g->size[0] % g->size[1];\n");
        en_buf_puts(out, "            _lpos[2][_i] = _i / (g->size[0] * g->size[1]);\n");
        en_buf_puts(out, "        }\n");
    }
    en_buf_puts(out, "    /* the threads still running, per SIMD group; lanes past _n never are */\n");
    en_buf_puts(out, "    uint32_t _act[32];\n");
    en_buf_puts(out, "    for (uint32_t _sg = 0; _sg < _nsg; _sg++)\n");
    en_buf_puts(out, "        _act[_sg] = _n - _sg * 32u >= 32u ? ENK_FULL : (1u << (_n - _sg * 32u)) - 1u;\n");
    if (em->checked) {
        en_buf_puts(out, "    /* checked mode: the runtime behind the group, and the threads that have returned */\n");
        en_buf_puts(out, "    const enk_check_group *_cg = (const enk_check_group *)g;\n");
        en_buf_puts(out, "    uint32_t _chk_ret[32] = {0};\n");
        en_buf_puts(out, "    (void)_chk_ret;\n");
        en_buf_printf(out, "    _cg->api->group_begin(_cg->state, g, enk_objects_%d, %d);\n", index, object_count);
    }
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        var_info *vi = info_of(em, v);
        if (vi->kind != VK_UNIFORM) continue;
        if (v->param_kind == IR_PARAM_ATTR) {
            en_buf_printf(out, "    %s %s; %s\n", ctype(em, v->type), vi->cname,
                          attr_init(em, v, vi->cname));
            en_buf_printf(out, "    (void)%s;\n", vi->cname);
        } else {
            en_buf_printf(out, "    %s %s = (%s)g->%s[%d]; /* %s */\n", ctype(em, v->type), vi->cname,
                          ctype(em, v->type), v->param_kind == IR_PARAM_THREADGROUP ? "tg_dynamic" : "buffers",
                          v->binding, ir_type_name(v->type, &em->arena));
            en_buf_printf(out, "    (void)%s;\n", vi->cname);
        }
    }
    if (em->prefetch_sites)
        en_buf_printf(out, "    uintptr_t _pf[%d] = {0}; /* last address of each prefetched load */\n",
                      em->prefetch_sites);
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        var_info *vi = info_of(em, v);
        if (vi->kind == VK_SCALAR_SG)
            en_buf_printf(out, "    %s %s[32] = {0}; /* uniform: one per SIMD group */\n", ctype(em, v->type), vi->cname);
    }
    if (body.data) en_buf_puts(out, body.data);
    en_buf_puts(out, "}\n");
    en_buf_free(&body);
}

enigma_status cpu_emit_module(const ir_module *m, const en_build_options *o, en_buf *out, en_buf *err) {
    emitter em_storage = {0}, *em = &em_storage;
    em->fast_paths = true; /* per access, unless checked mode hooks it (access_hooked) */
    em->checked = o && o->checked;
    em->m = m;
    em->err = err;
    en_arena_init(&em->arena);
    int global_count = m->next_global_id > 0 ? m->next_global_id : 1;
    for (int i = 0; i < m->globals.count; i++)
        if (m->globals.items[i]->id >= global_count) global_count = m->globals.items[i]->id + 1;
    em->globals = en_alloc(&em->arena, sizeof(var_info) * (size_t)global_count);
    em->object_of_global = en_alloc(&em->arena, sizeof(int) * (size_t)global_count);
    en_buf globals = {0}, kernels = {0};
    for (int i = 0; i < m->globals.count; i++) {
        const ir_var *v = m->globals.items[i];
        var_info *vi = &em->globals[v->id];
        vi->kind = VK_GLOBAL;
        vi->cname = S(em, "%s_g%d", ident(em, v->name), v->id);
        en_buf_printf(&globals, "static const %s %s = %s;\n", ctype(em, v->type), vi->cname,
                      const_init(em, v->init));
    }
    int index = 0;
    for (int i = 0; i < m->funcs.count && !em->failed; i++) {
        const ir_func *f = m->funcs.items[i];
        if (!f->is_kernel) continue;
        emit_kernel(em, f, index++, &kernels);
    }
    enigma_status st = ENIGMA_OK;
    if (em->failed) st = ENIGMA_ERROR_INTERNAL;
    else if (em->arena.out_of_memory || em->types.out_of_memory || kernels.out_of_memory) st = ENIGMA_ERROR_OUT_OF_MEMORY;
    else {
        en_buf_puts(out, "/* generated by enigma's cpu backend from Metal Shading Language */\n");
        en_buf_puts(out, cpu_prelude);
        if (em->checked) en_buf_puts(out, cpu_check_prelude);
        en_buf_puts(out, "\n/* ---- types ---- */\n");
        if (em->types.data) en_buf_puts(out, em->types.data);
        if (globals.data) {
            en_buf_puts(out, "\n/* ---- program-scope constants ---- */\n");
            en_buf_puts(out, globals.data);
        }
        if (kernels.data) en_buf_puts(out, kernels.data);
    }
    en_buf_free(&globals);
    en_buf_free(&kernels);
    en_buf_free(&em->types);
    en_buf_free(&em->sites);
    en_arena_free(&em->arena);
    return st;
}
