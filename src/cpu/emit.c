/* emit.c — kernel IR to readable C11 for the cpu backend: the module and kernel entry points.
 *
 * Needs: a verified module after inlining (no IR_S_CALL), as src/ir/ir.h describes.
 * Guarantees: C text that starts with the prelude (prelude.txt) and defines, for the i-th
 * kernel, enk_kernel_<i>(const enk_group *) which runs ONE threadgroup, plus the sizes
 * exec.c needs (see cpu.h).
 *
 * emit.h explains the execution model the generated C follows and lists the steps, one per
 * file. This file holds the entry points and what every step uses: the output helpers (S,
 * line, OPEN/CLOSE, fail), the C names of IR types (type definitions are written once per
 * module), and where variables and position attributes live. */
#include "emit.h"

#include <string.h>

/* ---- output: text, failures, notes of the source ------------------------------------ */
EN_INTERNAL const char *cpu_S(emitter *em, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    en_buf b = {0};
    en_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    const char *r = en_strdup(&em->arena, b.data ? b.data : "");
    en_buf_free(&b);
    return r;
}

EN_INTERNAL void cpu_fail(emitter *em, en_loc loc, const char *fmt, ...) {
    if (em->failed) return;
    em->failed = true;
    va_list ap;
    va_start(ap, fmt);
    en_buf_puts(em->err, "internal error: cpu backend: ");
    en_buf_vprintf(em->err, fmt, ap);
    if (loc.line > 0) en_buf_printf(em->err, " (at line %d)", loc.line);
    va_end(ap);
}

EN_INTERNAL void cpu_line(emitter *em, const char *fmt, ...) {
    for (int i = 0; i < em->indent; i++) en_buf_puts(em->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    en_buf_vprintf(em->out, fmt, ap);
    va_end(ap);
    en_buf_putc(em->out, '\n');
}

EN_INTERNAL int cpu_fresh(emitter *em) { return em->counter++; }

/* a comment naming the source line, with its text, so the C reads beside the .metal */
EN_INTERNAL const char *cpu_source_note(emitter *em, en_loc loc) {
    if (loc.line <= 0 || !em->m->sources) return cpu_S(em, "line ?");
    /* finding a line scans its file from the start, and wide mode notes every statement in
     * each copy of a loop: the notes made so far are kept, one slot per line number mod 64 */
    note_entry *hit = &em->notes[loc.line & 63];
    if (hit->text && hit->file == loc.file && hit->line == loc.line) return hit->text;
    int len = 0;
    const char *text = en_source_line(em->m->sources, loc.file, loc.line, &len);
    if (!text) return cpu_S(em, "line %d", loc.line);
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
    *hit = (note_entry){loc.file, loc.line, cpu_S(em, "line %d: %s", loc.line, clean)};
    return hit->text;
}

/* ---- types -------------------------------------------------------------------------- */
EN_INTERNAL const char *cpu_scalar_ctype(ir_type_kind k) {
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
EN_INTERNAL const char *cpu_suffix_of(const ir_type *t) {
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

EN_INTERNAL int cpu_int_bits(const ir_type *t) { return (int)t->size * 8; }
EN_INTERNAL const char *cpu_wide_unsigned(const ir_type *t) { return t->size == 8 ? "uint64_t" : "uint32_t"; }
static bool is_half_like(const ir_type *t) { return t->kind == IR_T_F16 || t->kind == IR_T_BF16; }

EN_INTERNAL const char *cpu_ident(emitter *em, const char *name) {
    char *s = en_strdup(&em->arena, name ? name : "v");
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            *p = '_';
    return s;
}

static const char *define_type(emitter *em, const ir_type *t) {
    /* dependencies first, so that names and definitions come in order */
    if (t->elem) cpu_ctype(em, t->elem);
    for (int i = 0; t->kind == IR_T_STRUCT && i < t->field_count; i++) cpu_ctype(em, t->fields[i].type);
    for (int i = 0; i < em->type_names.count; i++)
        if (em->type_names.items[i].type == t) return em->type_names.items[i].cname;
    int index = em->type_names.count;
    switch (t->kind) {
    case IR_T_VEC: {
        const char *elem = cpu_ctype(em, t->elem);
        const char *name = cpu_S(em, "enk_%s%s%u", t->packed ? "packed_" : "",
                             ir_type_name(t->elem, &em->arena), t->count);
        en_buf_printf(&em->types, "typedef struct { _Alignas(%u) %s v[%u]; } %s;\n", t->align, elem,
                      t->count, name);
        return name;
    }
    case IR_T_ARRAY: {
        const char *elem = cpu_ctype(em, t->elem);
        const char *name = cpu_S(em, "enk_array%d", index);
        en_buf_printf(&em->types, "typedef struct { %s a[%u]; } %s; /* %s */\n", elem,
                      t->count ? t->count : 1, name, ir_type_name(t, &em->arena));
        return name;
    }
    case IR_T_STRUCT: {
        const char *name = cpu_S(em, "struct enk_%s_%d", cpu_ident(em, t->name), index);
        en_buf_printf(&em->types, "%s { /* struct %s */\n", name, t->name);
        for (int i = 0; i < t->field_count; i++)
            en_buf_printf(&em->types, "    %s %s;\n", cpu_ctype(em, t->fields[i].type),
                          cpu_ident(em, t->fields[i].name));
        if (t->field_count == 0) en_buf_puts(&em->types, "    char _empty;\n");
        en_buf_puts(&em->types, "};\n");
        for (int i = 0; i < t->field_count; i++)
            en_buf_printf(&em->types, "_Static_assert(offsetof(%s, %s) == %u, \"MSL layout\");\n",
                          name, cpu_ident(em, t->fields[i].name), t->fields[i].offset);
        return name;
    }
    case IR_T_SIMD_MATRIX: {
        const char *elem = cpu_ctype(em, t->elem);
        const char *name = cpu_S(em, "enk_matrix_%s", ir_type_name(t->elem, &em->arena));
        en_buf_printf(&em->types,
                      "typedef struct { _Alignas(%u) %s e[2]; } %s; /* this lane's 2 of the 64 elements */\n",
                      t->align, elem, name);
        return name;
    }
    default: return cpu_scalar_ctype(t->kind);
    }
}

/* the C storage type: memory layout is MSL's, half and bfloat are their bits */
EN_INTERNAL const char *cpu_ctype(emitter *em, const ir_type *t) {
    if (!t) return "void";
    if (t->kind == IR_T_PTR) return cpu_S(em, "%s *", cpu_ctype(em, t->elem));
    if (t->kind == IR_T_ATOMIC) return cpu_ctype(em, t->elem);
    if (ir_is_scalar(t) || t->kind == IR_T_VOID) return cpu_scalar_ctype(t->kind);
    for (int i = 0; i < em->type_names.count; i++)
        if (em->type_names.items[i].type == t) return em->type_names.items[i].cname;
    const char *name = define_type(em, t);
    EN_PUSH(&em->arena, em->type_names, ((type_entry){t, name}));
    return name;
}

/* The C type memory is read and written through. MSL code accesses vectors (and structs and
 * arrays of them) at addresses short of their alignment: ggml's matrix kernels store float4s
 * into rows of any length, and Apple's GPUs allow it. gcc moves a type it knows to be 16-byte
 * aligned with aligned SSE/AVX instructions, which fault there; a typedef of alignment 1 has it
 * use unaligned moves, as fast where the address is aligned. Types aligned to less than 16
 * bytes keep their type: their plain loads and stores take any address on x86-64 and Arm64. */
EN_INTERNAL const char *cpu_access_ctype(emitter *em, const ir_type *t) {
    const char *ct = cpu_ctype(em, t);
    if (!t || t->align < 16 || t->kind == IR_T_PTR || t->kind == IR_T_ATOMIC || ir_is_scalar(t)) return ct;
    for (int i = 0; i < em->access_names.count; i++)
        if (em->access_names.items[i].type == t) return em->access_names.items[i].cname;
    const char *name = cpu_S(em, "enk_unaligned%d", em->access_names.count);
    en_buf_printf(&em->types, "typedef %s %s __attribute__((aligned(1)));\n", ct, name);
    EN_PUSH(&em->arena, em->access_names, ((type_entry){t, name}));
    return name;
}

/* the C type a scalar is computed in */
EN_INTERNAL const char *cpu_compute_ctype(const ir_type *t) {
    return is_half_like(t) ? "float" : cpu_scalar_ctype(t->kind);
}

/* storage bits -> computed value, and back */
EN_INTERNAL const char *cpu_from_storage(emitter *em, const ir_type *t, const char *x) {
    if (t->kind == IR_T_F16) return cpu_S(em, "enk_h2f(%s)", x);
    if (t->kind == IR_T_BF16) return cpu_S(em, "enk_bf2f(%s)", x);
    return x;
}
EN_INTERNAL const char *cpu_to_storage(emitter *em, const ir_type *t, const char *x) {
    if (t->kind == IR_T_F16) return cpu_S(em, "enk_f2h(%s)", x);
    if (t->kind == IR_T_BF16) return cpu_S(em, "enk_f2bf(%s)", x);
    return x;
}
/* a computed half/bfloat result rounded to its type (compute in float, round each result) */
EN_INTERNAL const char *cpu_rounded(emitter *em, const ir_type *t, const char *x) {
    if (t->kind == IR_T_F16) return cpu_S(em, "enk_rh(%s)", x);
    if (t->kind == IR_T_BF16) return cpu_S(em, "enk_rbf(%s)", x);
    return x;
}

/* ---- variables ---------------------------------------------------------------------- */
EN_INTERNAL var_info *cpu_info_of(emitter *em, const ir_var *v) {
    if (v->storage == IR_VAR_CONSTANT) return &em->globals[v->id];
    if (v->id < 0 || v->id >= em->var_count) return &em->vars[0];
    return &em->vars[v->id];
}

EN_INTERNAL bool cpu_attr_is_per_lane(ir_attr a) {
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
EN_INTERNAL const char *cpu_attr_value(emitter *em, ir_attr a, int d) {
    if (em->wide) { /* thread l of the group, at column _x and row _y (emit_wide.c) */
        const char *xy = d == 0 ? "_x" : d == 1 ? "_y" : "0u";
        switch (a) {
        case IR_ATTR_THREAD_POSITION_IN_GRID: return cpu_S(em, "(_g%d + %s)", d, xy);
        case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: return xy;
        case IR_ATTR_THREAD_INDEX_IN_THREADGROUP: return "(uint32_t)l";
        case IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP: return "((uint32_t)l >> 5)";
        case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP: return "((uint32_t)l & 31u)";
        default: break;
        }
    }
    const char *lane = em->lane ? em->lane : "(uint32_t)l";
    const char *li = cpu_S(em, "(_sg * 32u + %s)", lane);
    /* in a 1-D threadgroup the position is the index; otherwise a table made once per
     * threadgroup (no division per lane per region) */
    const char *pos[3];
    for (int k = 0; k < 3; k++)
        pos[k] = em->lane_shape == 1 ? (k == 0 ? li : "0u")
                 : em->lane_shape == 2 ? cpu_S(em, "_lpos[%d][%s]", k, li)
                 : k == 0 ? cpu_S(em, "(_one_d ? %s : _lpos[0][%s])", li, li)
                          : cpu_S(em, "(_one_d ? 0u : _lpos[%d][%s])", k, li);
    switch (a) {
    case IR_ATTR_THREAD_POSITION_IN_GRID:
        return cpu_S(em, "(g->position[%d] * g->group_size[%d] + %s)", d, d, pos[d]);
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP: return pos[d];
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP: return li;
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP: return lane;
    case IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP: return "_sg";
    case IR_ATTR_THREAD_INDEX_IN_QUADGROUP: return "((uint32_t)l & 3u)";
    case IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP: return cpu_S(em, "(%s / 4u)", li);
    case IR_ATTR_THREADS_PER_GRID: return cpu_S(em, "g->grid[%d]", d);
    case IR_ATTR_THREADS_PER_THREADGROUP: return cpu_S(em, "g->size[%d]", d);
    case IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP: return cpu_S(em, "g->group_size[%d]", d);
    case IR_ATTR_THREADGROUP_POSITION_IN_GRID: return cpu_S(em, "g->position[%d]", d);
    case IR_ATTR_THREADGROUPS_PER_GRID: return cpu_S(em, "g->groups[%d]", d);
    case IR_ATTR_THREADS_PER_SIMDGROUP:
    case IR_ATTR_THREAD_EXECUTION_WIDTH: return "32u";
    case IR_ATTR_SIMDGROUPS_PER_THREADGROUP: return "((_n + 31u) / 32u)";
    case IR_ATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP: return "((_dispatch_n + 31u) / 32u)";
    case IR_ATTR_QUADGROUPS_PER_THREADGROUP: return "((_n + 3u) / 4u)";
    case IR_ATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP: return "((_dispatch_n + 3u) / 4u)";
    default: return "0u";
    }
}

EN_INTERNAL void cpu_lane_attr_loop(emitter *em, const ir_var *v, const char *target) {
    const char *init = cpu_attr_init(em, v, cpu_S(em, "%s[l]", target));
    if (!strstr(init, "_one_d")) {
        cpu_line(em, "for (int l = 0; l < 32; l++) { %s }", init);
        return;
    }
    int shape = em->lane_shape;
    em->lane_shape = 1;
    cpu_line(em, "if (_one_d) for (int l = 0; l < 32; l++) { %s }", cpu_attr_init(em, v, cpu_S(em, "%s[l]", target)));
    em->lane_shape = 2;
    cpu_line(em, "else for (int l = 0; l < 32; l++) { %s }", cpu_attr_init(em, v, cpu_S(em, "%s[l]", target)));
    em->lane_shape = shape;
}

/* `x = <attribute>` for one lane (or the uniform scalar): every component */
EN_INTERNAL const char *cpu_attr_init(emitter *em, const ir_var *v, const char *target) {
    const ir_type *t = v->type;
    if (t->kind == IR_T_VEC) {
        en_buf b = {0};
        for (uint32_t c = 0; c < t->count; c++)
            en_buf_printf(&b, "%s.v[%u] = (%s)%s; ", target, c, cpu_scalar_ctype(t->elem->kind),
                          cpu_attr_value(em, v->attr, (int)c));
        const char *r = cpu_S(em, "%s", b.data ? b.data : "");
        en_buf_free(&b);
        return r;
    }
    return cpu_S(em, "%s = (%s)%s;", target, cpu_scalar_ctype(t->kind), cpu_attr_value(em, v->attr, 0));
}

/* ---- kernels -------------------------------------------------------------------------- */
/* a local's declaration value, for lane_form() to see through `uint row = pos.y;` */
static void collect_init(const ir_stmt *s, void *emitter_ctx) {
    emitter *em = emitter_ctx;
    if (s->kind == IR_S_DECL && s->value && s->var->id >= 0 && s->var->id < em->var_count)
        em->inits[s->var->id] = s->value;
}

static bool uses_position_table(const ir_func *f) {
    for (int k = 0; k < f->param_count; k++)
        if (f->params[k]->param_kind == IR_PARAM_ATTR &&
            (f->params[k]->attr == IR_ATTR_THREAD_POSITION_IN_GRID ||
             f->params[k]->attr == IR_ATTR_THREAD_POSITION_IN_THREADGROUP))
            return true;
    return false;
}

/* Checked mode: can the kernel's threadgroups be checked apart, each on its own copy of
 * the checking state? Only threadgroup memory, which is each group's own, and the buffers
 * the kernel writes carry state from one group to the next (check_rt.c's shadow); a buffer
 * that every access reaches atomically needs none (two atomics never race), so the answer
 * is yes when every access names its object and no written buffer has a plain access. */
static bool check_apart(const emitter *em) {
    if (em->object_by_address) return false;
    for (int i = 0; i < em->object_count; i++)
        if ((em->object_use[i] & CPU_OBJECT_WRITTEN_BUFFER) && (em->object_use[i] & CPU_OBJECT_PLAIN_ACCESS)) return false;
    return true;
}

static void emit_kernel(emitter *em, const ir_func *f, int index, en_buf *out) {
    em->f = f;
    em->var_count = f->next_var_id > 0 ? f->next_var_id : 1;
    em->vars = en_alloc(&em->arena, sizeof(var_info) * (size_t)em->var_count);
    em->loops.count = 0;
    em->prefetch_sites = 0;
    em->inits = en_alloc(&em->arena, sizeof(const ir_expr *) * (size_t)em->var_count);
    for (int i = 0; i < em->var_count; i++) em->inits[i] = NULL;
    ir_stmt_each(f->body, collect_init, em);
    em->interleaved.count = 0;
    em->kernel_index = index;
    em->region_used = NULL;
    em->outlined = NULL;
    em->part_count = 0;
    em->position_table = uses_position_table(f);
    cpu_outline_choose(em, f);
    em->var_by_id = en_alloc(&em->arena, sizeof(const ir_var *) * (size_t)em->var_count);
    for (int i = 0; i < em->var_count; i++) em->var_by_id[i] = NULL;
    for (int k = 0; k < f->locals.count; k++)
        if (f->locals.items[k]->id >= 0 && f->locals.items[k]->id < em->var_count)
            em->var_by_id[f->locals.items[k]->id] = f->locals.items[k];
    for (int k = 0; k < f->param_count; k++)
        if (f->params[k]->id >= 0 && f->params[k]->id < em->var_count) em->var_by_id[f->params[k]->id] = f->params[k];
    cpu_classify_vars(em, f);
    cpu_choose_interleaved(em, cpu_list_of(f->body));
    if (em->interleaved.count) cpu_classify_vars(em, f); /* again, with the regions cut at those loops */
    /* checked mode: the objects pointers of this kernel may point into (check_rt.h) */
    en_buf objects = {0};
    int object_count = 0;
    if (em->checked) {
        em->site_count = 0;
        em->object_count = 0;
        em->object_by_address = false;
        em->object_use = en_alloc(&em->arena, (size_t)(f->param_count + f->threadgroup_vars.count + em->m->globals.count + 1));
        em->object_of_var = en_alloc(&em->arena, sizeof(int) * (size_t)em->var_count);
        for (int i = 0; i < em->var_count; i++) em->object_of_var[i] = -1;
        for (int k = 0; k < f->param_count; k++) {
            const ir_var *v = f->params[k];
            if (v->param_kind != IR_PARAM_BUFFER && v->param_kind != IR_PARAM_THREADGROUP) continue;
            bool is_const = v->type->kind == IR_T_PTR && (v->type->is_const || v->type->space == IR_SPACE_CONSTANT);
            en_buf_printf(&objects, "    {%d, %d, %d, 0, 0, 0, %s},\n",
                          v->param_kind == IR_PARAM_BUFFER ? CPU_CHECK_OBJ_BUFFER : CPU_CHECK_OBJ_TG_DYNAMIC,
                          is_const, v->binding, cpu_c_string(em, v->name));
            if (v->id >= 0 && v->id < em->var_count) em->object_of_var[v->id] = object_count;
            em->object_use[object_count] = v->param_kind == IR_PARAM_BUFFER && !is_const ? CPU_OBJECT_WRITTEN_BUFFER : 0;
            object_count++;
        }
        for (int k = 0; k < f->threadgroup_vars.count; k++) {
            const ir_var *v = f->threadgroup_vars.items[k];
            const char *cn = cpu_info_of(em, v)->cname;
            en_buf_printf(&objects,
                          "    {%d, 0, -1, offsetof(struct enk_threadgroup_%d, %s), "
                          "sizeof(((struct enk_threadgroup_%d *)0)->%s), 0, %s},\n",
                          CPU_CHECK_OBJ_TG_STATIC, index, cn, index, cn, cpu_c_string(em, v->name));
            if (v->id >= 0 && v->id < em->var_count) em->object_of_var[v->id] = object_count;
            object_count++;
        }
        for (int k = 0; k < em->m->globals.count; k++) {
            const ir_var *v = em->m->globals.items[k];
            const char *cn = em->globals[v->id].cname;
            en_buf_printf(&objects, "    {%d, 1, -1, 0, sizeof(%s), &%s, %s},\n", CPU_CHECK_OBJ_CONSTANT, cn, cn,
                          cpu_c_string(em, v->name));
            em->object_of_global[v->id] = object_count++;
        }
        em->object_count = object_count;
        cpu_pointer_sources(em, f);
    }

    en_buf body = {0};
    em->out = &body;
    em->indent = 1;
    em->region_next = 0;
    /* per-thread copies of parameters the kernel assigns */
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        var_info *vi = cpu_info_of(em, v);
        if (vi->kind != VK_CONTEXT) continue;
        OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) { /* %s is assigned: a copy per thread */", v->name);
        cpu_line(em, "%s *%s = _ctx->%s + _sg * 32;", cpu_ctype(em, v->type), vi->cname, vi->cname);
        if (v->param_kind == IR_PARAM_ATTR)
            cpu_lane_attr_loop(em, v, vi->cname);
        else if (v->param_kind == IR_PARAM_THREADGROUP)
            cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = (%s)g->tg_dynamic[%d];", vi->cname, cpu_ctype(em, v->type), v->binding);
        else
            cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = (%s)g->buffers[%d];", vi->cname, cpu_ctype(em, v->type), v->binding);
        CLOSE();
    }
    em->region_next = 0;
    en_buf wide_fields = {0};
    /* tried first; the regions run other group shapes. What only the region code reads
     * (the lane masks, per-SIMD-group copies of uniform values) is set up after the wide
     * block, at region_start, so that a threadgroup the wide block runs does not pay for it */
    size_t region_start = 0;
    if (cpu_wide_body(em, f, &wide_fields)) region_start = body.len;
    else cpu_tile_body(em, f);
    cpu_tg_list(em, cpu_list_of(f->body));
    em->out = out;

    /* context block: values that live across barriers, per thread */
    en_buf_printf(out, "\n/* ---- kernel %s (%s) ---- */\n", f->name, cpu_source_note(em, f->loc));
    en_buf_printf(out, "struct enk_context_%d { /* values live across barriers, per thread */\n", index);
    int context_fields = 0, tg_fields = 0;
    for (int pass = 0; pass < 2; pass++) {
        int count = pass == 0 ? f->param_count : f->locals.count;
        for (int k = 0; k < count; k++) {
            const ir_var *v = pass == 0 ? f->params[k] : f->locals.items[k];
            var_info *vi = cpu_info_of(em, v);
            if (vi->kind != VK_CONTEXT) continue;
            en_buf_printf(out, "    %s %s[%d];\n", cpu_ctype(em, v->type), vi->cname, CPU_MAX_THREADS);
            context_fields++;
        }
    }
    if (wide_fields.data) {
        en_buf_puts(out, wide_fields.data);
        context_fields++;
    }
    en_buf_free(&wide_fields);
    if (!context_fields) en_buf_puts(out, "    char _none;\n");
    en_buf_puts(out, "};\n");
    en_buf_printf(out, "struct enk_threadgroup_%d { /* `threadgroup` variables */\n", index);
    for (int k = 0; k < f->threadgroup_vars.count; k++) {
        const ir_var *v = f->threadgroup_vars.items[k];
        en_buf_printf(out, "    %s %s;\n", cpu_ctype(em, v->type), cpu_info_of(em, v)->cname);
        tg_fields++;
    }
    if (!tg_fields) en_buf_puts(out, "    char _none;\n");
    en_buf_puts(out, "};\n");
    en_buf_printf(out, "const size_t enk_kernel_%d_context = %s;\n", index,
                  context_fields ? cpu_S(em, "sizeof(struct enk_context_%d)", index) : "0");
    en_buf_printf(out, "const size_t enk_kernel_%d_tg_static = %s;\n", index,
                  tg_fields ? cpu_S(em, "sizeof(struct enk_threadgroup_%d)", index) : "0");
    if (em->checked) {
        en_buf_printf(out, "static const enk_check_object enk_objects_%d[] = { /* what pointers may point into */\n%s    {0}\n};\n",
                      index, objects.data ? objects.data : "");
        en_buf_printf(out, "static const enk_check_site enk_sites_%d[] = { /* file, line, col, op, space, object, size, what */\n%s    {0}\n};\n",
                      index, em->sites.data ? em->sites.data : "");
        em->sites.len = 0;
        en_buf_printf(out, "/* 1: no checking state is shared between threadgroups (each access names its object,\n"
                           " * the buffers the kernel writes are only accessed atomically): they may be checked\n"
                           " * on several workers at once */\n"
                           "const int enk_kernel_%d_check_apart = %d;\n", index, check_apart(em));
    }
    en_buf_free(&objects);
    if (em->parts.out_of_memory) out->out_of_memory = true; /* reported with the kernels' text */
    if (em->parts.len) /* large statements, outlined (emit_outline.c) */
        en_buf_puts(out, em->parts.data);
    en_buf_free(&em->parts);
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
    en_buf region_setup = {0};
    if (uses_position_table(f)) {
        /* the region code's (the wide block has its own _x and _y): after the wide block
         * when there is one, where a 16 x 16 GEMM group paid ~9% of its time for it */
        bool before_wide = false; /* per-thread copies of assigned attributes come first, from it */
        for (int k = 0; k < f->param_count; k++)
            before_wide |= f->params[k]->param_kind == IR_PARAM_ATTR && cpu_info_of(em, f->params[k])->kind == VK_CONTEXT;
        en_buf *to = region_start && !before_wide ? &region_setup : out;
        en_buf_puts(to, "    /* positions within the threadgroup, when it is not 1-D */\n");
        en_buf_puts(to, "    uint32_t _lpos[3][1024];\n");
        en_buf_puts(to, "    if (!_one_d)\n");
        en_buf_puts(to, "        for (uint32_t _i = 0; _i < _n; _i++) {\n");
        en_buf_puts(to, "            _lpos[0][_i] = _i % g->size[0];\n");
        en_buf_puts(to, "            _lpos[1][_i] = _i / g->size[0] % g->size[1];\n");
        en_buf_puts(to, "            _lpos[2][_i] = _i / (g->size[0] * g->size[1]);\n");
        en_buf_puts(to, "        }\n");
    }
    en_buf_puts(&region_setup, "    /* the threads still running, per SIMD group; lanes past _n never are */\n");
    en_buf_puts(&region_setup, "    uint32_t _act[32];\n");
    en_buf_puts(&region_setup, "    for (uint32_t _sg = 0; _sg < _nsg; _sg++)\n");
    en_buf_puts(&region_setup, "        _act[_sg] = _n - _sg * 32u >= 32u ? ENK_FULL : (1u << (_n - _sg * 32u)) - 1u;\n");
    if (em->checked) {
        en_buf_puts(out, "    /* checked mode: the runtime behind the group, and the threads that have returned */\n");
        en_buf_puts(out, "    const enk_check_group *_cg = (const enk_check_group *)g;\n");
        en_buf_puts(out, "    uint32_t _chk_ret[32] = {0};\n");
        en_buf_puts(out, "    (void)_chk_ret;\n");
        en_buf_printf(out, "    _cg->api->group_begin(_cg->state, g, enk_objects_%d, %d);\n", index, object_count);
    }
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        var_info *vi = cpu_info_of(em, v);
        if (vi->kind != VK_UNIFORM) continue;
        if (v->param_kind == IR_PARAM_ATTR) {
            en_buf_printf(out, "    %s %s; %s\n", cpu_ctype(em, v->type), vi->cname,
                          cpu_attr_init(em, v, vi->cname));
            en_buf_printf(out, "    (void)%s;\n", vi->cname);
        } else {
            en_buf_printf(out, "    %s %s = (%s)g->%s[%d]; /* %s */\n", cpu_ctype(em, v->type), vi->cname,
                          cpu_ctype(em, v->type), v->param_kind == IR_PARAM_THREADGROUP ? "tg_dynamic" : "buffers",
                          v->binding, ir_type_name(v->type, &em->arena));
            en_buf_printf(out, "    (void)%s;\n", vi->cname);
        }
    }
    if (em->prefetch_sites || em->part_count) /* outlined statements take _pf, used or not */
        en_buf_printf(out, "    uintptr_t _pf[%d] = {0}; /* last address of each prefetched load */\n",
                      em->prefetch_sites ? em->prefetch_sites : 1);
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        var_info *vi = cpu_info_of(em, v);
        if (vi->kind == VK_SCALAR_SG)
            en_buf_printf(&region_setup, "    %s %s[32] = {0}; /* uniform: one per SIMD group */\n", cpu_ctype(em, v->type),
                          vi->cname);
    }
    /* the wide block (it returns), then what the region code needs, then the region code */
    if (region_start) en_buf_printf(out, "%.*s", (int)region_start, body.data);
    if (region_setup.data) en_buf_puts(out, region_setup.data);
    if (body.data) en_buf_puts(out, body.data + region_start);
    en_buf_puts(out, "}\n");
    en_buf_free(&region_setup);
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
        vi->cname = cpu_S(em, "%s_g%d", cpu_ident(em, v->name), v->id);
        en_buf_printf(&globals, "static const %s %s = %s;\n", cpu_ctype(em, v->type), vi->cname,
                      cpu_const_init(em, v->init));
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
    en_buf_free(&em->parts);
    en_arena_free(&em->arena);
    return st;
}
