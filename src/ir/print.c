/* print.c — the IR as readable text: what `enigma compile --emit ir` and
 * ENIGMA_DUMP_IR show, and what golden tests compare. The text is deterministic: it depends
 * only on the module (no addresses, no hash order).
 *
 * Format (two spaces of indentation per nesting level):
 *
 *   struct S                          ; size 32, align 16
 *     float3 pos                      ; offset 0
 *   const float[2] @table = float[2]{1.0f, 2.0f}
 *   kernel void add(device float* a [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
 *     threadgroup float[32] tile
 *     float x = a[gid]                ; @3:5
 *     loop L0 unroll(4) {
 *       if ((x < 1.0f)) { ... } else { ... }
 *       break L0
 *     } latch {
 *       x = (x + 1.0f)
 *     }
 *     t4 = atomic_fetch_add_explicit<int>(p, 1)
 *     threadgroup_barrier(mem_threadgroup)
 *     return
 *   }
 *
 * - Functions: `kernel` or `func`, return type, name, parameters with their types and
 *   [[buffer(n)]], [[threadgroup(n)]] or [[attribute]]; `[[max_total_threads_per_threadgroup(n)]]`
 *   follows the parameter list when set. Kernel-scope threadgroup variables come first in
 *   the body, marked `threadgroup`.
 * - Variables print as their source name; when two variables of one function (or a
 *   variable and a global) share a name, each prints as `name.id`. Temporaries are `t<id>`.
 *   Globals print as `@name`.
 * - Declarations show their type: `float x = ...`. Every intrinsic call and conversion shows
 *   its result type in angle brackets: `sqrt<float>(x)`, `convert<int>(x)`,
 *   `as_type<uint>(x)`, `splat<float4>(x)`, `ptrcast<device uint*>(p)`; precise:: calls are
 *   `precise::sqrt<float>(x)`. Function calls are `call f(args)`.
 * - Every binary operation is parenthesised except at the top of a statement, so the
 *   text never depends on precedence rules. Selects are `(c ? a : b)`, pointer arithmetic
 *   `(p +> i)`, vectors `float4(a, b, c, d)`, aggregates `T{a, b}`. Barriers name their
 *   constant mem_flags: `threadgroup_barrier(mem_device | mem_threadgroup)`.
 * - Constants: int `5`, uint `5u`, long `5l`, ulong `5ul`, bool `true`, float `1.5f`, half
 *   `1.5h`, bfloat `1.5bf`; other integer types as `ushort(5)`. Floats use the shortest
 *   decimal that reads back as the same double.
 * - Loops are numbered L0, L1 ... per function in order of appearance; break and continue
 *   name their loop (`L?` when the target is not an enclosing loop).
 * - With locations on (ir_print_module / ir_print_func), a statement whose location is
 *   known ends with `; @line:col`. */
#include "ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef EN_VEC(const char *) name_list;

typedef struct printer {
    const ir_module *m;
    const ir_func *f;
    en_buf *out;
    en_arena arena;          /* type names and scratch, freed after printing */
    unsigned flags;
    EN_VEC(const ir_stmt *) loops; /* every loop met, in order: its index is its label */
    name_list dup_names; /* names shared by two or more variables */
} printer;

static void print_expr(printer *p, const ir_expr *e, bool top);
static void print_stmt(printer *p, const ir_stmt *s, int depth);

static const char *type_name(printer *p, const ir_type *t) { return ir_type_name(t, &p->arena); }

/* ---- variable names ---------------------------------------------------------------- */
static int compare_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool name_is_dup(const printer *p, const char *name) {
    return p->dup_names.count &&
           bsearch(&name, p->dup_names.items, (size_t)p->dup_names.count, sizeof(const char *),
                   compare_names) != NULL;
}

static void add_names(printer *p, name_list *all, ir_var *const *vars, int n) {
    for (int i = 0; i < n; i++)
        if (vars && vars[i] && vars[i]->name) EN_PUSH(&p->arena, *all, vars[i]->name);
}

/* a name shared by two variables in scope of printing needs its id to tell them apart;
 * sorted, so that kernels of many thousand variables print in n log n */
static void collect_dup_names(printer *p) {
    name_list all = {0};
    p->dup_names.count = 0;
    if (p->m) add_names(p, &all, p->m->globals.items, p->m->globals.count);
    if (p->f) {
        add_names(p, &all, p->f->params, p->f->param_count);
        add_names(p, &all, p->f->threadgroup_vars.items, p->f->threadgroup_vars.count);
        add_names(p, &all, p->f->locals.items, p->f->locals.count);
    }
    if (all.count < 2) return;
    qsort(all.items, (size_t)all.count, sizeof(const char *), compare_names);
    for (int i = 1; i < all.count; i++)
        if (strcmp(all.items[i], all.items[i - 1]) == 0 &&
            (p->dup_names.count == 0 || strcmp(p->dup_names.items[p->dup_names.count - 1], all.items[i]) != 0))
            EN_PUSH(&p->arena, p->dup_names, all.items[i]);
}

static void print_var(printer *p, const ir_var *v) {
    if (!v) {
        en_buf_puts(p->out, "<null var>");
        return;
    }
    const char *name = v->name ? v->name : "?";
    if (v->storage == IR_VAR_CONSTANT) en_buf_putc(p->out, '@');
    en_buf_puts(p->out, name);
    if (name_is_dup(p, name)) en_buf_printf(p->out, ".%d", v->id);
}

/* ---- constants --------------------------------------------------------------------- */
static void print_double(en_buf *out, double d) {
    if (isnan(d)) {
        en_buf_puts(out, "nan");
        return;
    }
    if (isinf(d)) {
        en_buf_puts(out, d < 0 ? "-inf" : "inf");
        return;
    }
    char text[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(text, sizeof text, "%.*g", prec, d);
        if (strtod(text, NULL) == d) break;
    }
    en_buf_puts(out, text);
    /* keep it visibly a float: 1 -> 1.0 */
    if (!strpbrk(text, ".en")) en_buf_puts(out, ".0");
}

static void print_const(printer *p, const ir_expr *e) {
    const ir_type *t = e->type;
    if (!t) {
        en_buf_printf(p->out, "<untyped %lld>", (long long)e->c.i);
        return;
    }
    switch (t->kind) {
    case IR_T_BOOL: en_buf_puts(p->out, e->c.u ? "true" : "false"); return;
    case IR_T_I32: en_buf_printf(p->out, "%lld", (long long)e->c.i); return;
    case IR_T_U32: en_buf_printf(p->out, "%lluu", (unsigned long long)e->c.u); return;
    case IR_T_I64: en_buf_printf(p->out, "%lldl", (long long)e->c.i); return;
    case IR_T_U64: en_buf_printf(p->out, "%lluul", (unsigned long long)e->c.u); return;
    case IR_T_I8: case IR_T_I16:
        en_buf_printf(p->out, "%s(%lld)", type_name(p, t), (long long)e->c.i);
        return;
    case IR_T_U8: case IR_T_U16:
        en_buf_printf(p->out, "%s(%llu)", type_name(p, t), (unsigned long long)e->c.u);
        return;
    case IR_T_F32: print_double(p->out, e->c.f); en_buf_putc(p->out, 'f'); return;
    case IR_T_F16: print_double(p->out, e->c.f); en_buf_putc(p->out, 'h'); return;
    case IR_T_BF16: print_double(p->out, e->c.f); en_buf_puts(p->out, "bf"); return;
    default: en_buf_printf(p->out, "<constant of type %s>", type_name(p, t)); return;
    }
}

/* ---- expressions ------------------------------------------------------------------- */
static const ir_expr *arg(const ir_expr *e, int i) { return i < e->arg_count && e->args ? e->args[i] : NULL; }

static void print_args(printer *p, const ir_expr *e, int from) {
    for (int i = from; i < e->arg_count; i++) {
        if (i > from) en_buf_puts(p->out, ", ");
        print_expr(p, arg(e, i), true);
    }
}

static void print_typed_call(printer *p, const char *what, const ir_expr *e) {
    en_buf_printf(p->out, "%s<%s>(", what, type_name(p, e->type));
    print_args(p, e, 0);
    en_buf_putc(p->out, ')');
}

static const char *field_name(const ir_expr *e) {
    const ir_expr *base = arg(e, 0);
    const ir_type *t = base ? base->type : NULL;
    if (t && t->kind == IR_T_STRUCT && e->field >= 0 && e->field < t->field_count)
        return t->fields[e->field].name;
    return NULL;
}

static void print_expr(printer *p, const ir_expr *e, bool top) {
    en_buf *out = p->out;
    if (!e) {
        en_buf_puts(out, "<null>");
        return;
    }
    switch (e->kind) {
    case IR_E_CONST: print_const(p, e); return;
    case IR_E_VAR: print_var(p, e->var); return;
    case IR_E_INDEX:
        print_expr(p, arg(e, 0), false);
        en_buf_putc(out, '[');
        print_expr(p, arg(e, 1), true);
        en_buf_putc(out, ']');
        return;
    case IR_E_FIELD: {
        print_expr(p, arg(e, 0), false);
        const char *name = field_name(e);
        if (name) en_buf_printf(out, ".%s", name);
        else en_buf_printf(out, ".<field %d>", e->field);
        return;
    }
    case IR_E_SWIZZLE:
        print_expr(p, arg(e, 0), false);
        en_buf_putc(out, '.');
        for (int i = 0; i < e->swizzle_len && i < 4; i++)
            en_buf_putc(out, e->swizzle[i] < 4 ? "xyzw"[e->swizzle[i]] : '?');
        return;
    case IR_E_DEREF:
        en_buf_puts(out, "(*");
        print_expr(p, arg(e, 0), false);
        en_buf_putc(out, ')');
        return;
    case IR_E_ADDR:
        en_buf_puts(out, "(&");
        print_expr(p, arg(e, 0), false);
        en_buf_putc(out, ')');
        return;
    case IR_E_UNARY: {
        /* -(-x) and -(-1) keep their parentheses so that no "--" appears */
        const ir_expr *x = arg(e, 0);
        bool wrap = x && (x->kind == IR_E_UNARY ||
                          (x->kind == IR_E_CONST && x->type && ir_is_signed(x->type) && x->c.i < 0) ||
                          (x->kind == IR_E_CONST && ir_is_float(x->type) && signbit(x->c.f)));
        en_buf_puts(out, ir_op_name(e->op));
        if (wrap) en_buf_putc(out, '(');
        print_expr(p, x, false);
        if (wrap) en_buf_putc(out, ')');
        return;
    }
    case IR_E_BINARY:
        if (!top) en_buf_putc(out, '(');
        print_expr(p, arg(e, 0), false);
        en_buf_printf(out, " %s ", ir_op_name(e->op));
        print_expr(p, arg(e, 1), false);
        if (!top) en_buf_putc(out, ')');
        return;
    case IR_E_SELECT:
        en_buf_putc(out, '(');
        print_expr(p, arg(e, 0), false);
        en_buf_puts(out, " ? ");
        print_expr(p, arg(e, 1), false);
        en_buf_puts(out, " : ");
        print_expr(p, arg(e, 2), false);
        en_buf_putc(out, ')');
        return;
    case IR_E_CONVERT: print_typed_call(p, "convert", e); return;
    case IR_E_BITCAST: print_typed_call(p, "as_type", e); return;
    case IR_E_PTRCAST: print_typed_call(p, "ptrcast", e); return;
    case IR_E_SPLAT: print_typed_call(p, "splat", e); return;
    case IR_E_PTR_OFFSET:
        en_buf_putc(out, '(');
        print_expr(p, arg(e, 0), false);
        en_buf_puts(out, " +> ");
        print_expr(p, arg(e, 1), false);
        en_buf_putc(out, ')');
        return;
    case IR_E_VECTOR:
        en_buf_printf(out, "%s(", type_name(p, e->type));
        print_args(p, e, 0);
        en_buf_putc(out, ')');
        return;
    case IR_E_AGGREGATE:
        en_buf_printf(out, "%s{", type_name(p, e->type));
        print_args(p, e, 0);
        en_buf_putc(out, '}');
        return;
    case IR_E_CALL:
        if (e->precise) en_buf_puts(out, "precise::");
        print_typed_call(p, ir_intrinsic_name(e->intrinsic), e);
        return;
    }
    en_buf_printf(out, "<expr kind %d>", (int)e->kind);
}

/* ---- statements -------------------------------------------------------------------- */
static void indent(printer *p, int depth) {
    for (int i = 0; i < depth; i++) en_buf_puts(p->out, "  ");
}

static void end_line(printer *p, en_loc loc) {
    if ((p->flags & IR_PRINT_LOCATIONS) && loc.file >= 0 && loc.line > 0)
        en_buf_printf(p->out, "  ; @%d:%d", loc.line, loc.col);
    en_buf_putc(p->out, '\n');
}

static int loop_label(printer *p, const ir_stmt *loop) {
    for (int i = 0; i < p->loops.count; i++)
        if (p->loops.items[i] == loop) return i;
    return -1;
}

/* the statements of a block, or the one statement, one level deeper */
static void print_body(printer *p, const ir_stmt *s, int depth) {
    if (s && s->kind == IR_S_BLOCK) {
        for (int i = 0; i < s->stmt_count; i++) print_stmt(p, s->stmts[i], depth);
    } else if (s) {
        print_stmt(p, s, depth);
    }
}

static void print_stmt_args(printer *p, ir_expr *const *args, int n) {
    en_buf_putc(p->out, '(');
    for (int i = 0; i < n; i++) {
        if (i) en_buf_puts(p->out, ", ");
        print_expr(p, args ? args[i] : NULL, true);
    }
    en_buf_putc(p->out, ')');
}

/* a barrier's mem_flags, by name when constant: threadgroup_barrier(mem_threadgroup) */
static void print_mem_flags(printer *p, const ir_expr *e) {
    if (!e || e->kind != IR_E_CONST || !ir_is_integer(e->type) ||
        (e->c.u & ~(uint64_t)(IR_MEM_DEVICE | IR_MEM_THREADGROUP | IR_MEM_TEXTURE))) {
        print_expr(p, e, true);
        return;
    }
    if (!e->c.u) {
        en_buf_puts(p->out, "mem_none");
        return;
    }
    static const struct { unsigned bit; const char *name; } names[] = {
        {IR_MEM_DEVICE, "mem_device"}, {IR_MEM_THREADGROUP, "mem_threadgroup"}, {IR_MEM_TEXTURE, "mem_texture"}};
    bool first = true;
    for (size_t i = 0; i < EN_COUNT(names); i++)
        if (e->c.u & names[i].bit) {
            en_buf_printf(p->out, "%s%s", first ? "" : " | ", names[i].name);
            first = false;
        }
}

/* a fence's arguments by name: atomic_thread_fence(mem_device, seq_cst, device) */
static void print_fence_args(printer *p, const ir_stmt *s) {
    static const char *const orders[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    static const char *const scopes[] = {"thread", "threadgroup", "device", "system", "simdgroup"};
    en_buf_putc(p->out, '(');
    print_mem_flags(p, s->args[0]);
    const ir_expr *order = s->args[1], *scope = s->args[2];
    en_buf_puts(p->out, ", ");
    if (order->kind == IR_E_CONST && order->c.u < EN_COUNT(orders)) en_buf_puts(p->out, orders[order->c.u]);
    else print_expr(p, order, true);
    en_buf_puts(p->out, ", ");
    if (scope->kind == IR_E_CONST && scope->c.u < EN_COUNT(scopes)) en_buf_puts(p->out, scopes[scope->c.u]);
    else print_expr(p, scope, true);
    en_buf_putc(p->out, ')');
}

static void print_stmt(printer *p, const ir_stmt *s, int depth) {
    en_buf *out = p->out;
    indent(p, depth);
    if (!s) {
        en_buf_puts(out, "<null statement>\n");
        return;
    }
    switch (s->kind) {
    case IR_S_BLOCK:
        en_buf_puts(out, "{");
        end_line(p, s->loc);
        print_body(p, s, depth + 1);
        indent(p, depth);
        en_buf_puts(out, "}\n");
        return;
    case IR_S_DECL:
        en_buf_printf(out, "%s ", type_name(p, s->var ? s->var->type : NULL));
        print_var(p, s->var);
        if (s->value) {
            en_buf_puts(out, " = ");
            print_expr(p, s->value, true);
        }
        end_line(p, s->loc);
        return;
    case IR_S_ASSIGN:
        print_expr(p, s->place, true);
        en_buf_puts(out, " = ");
        print_expr(p, s->value, true);
        end_line(p, s->loc);
        return;
    case IR_S_IF:
        en_buf_puts(out, "if (");
        print_expr(p, s->cond, true);
        en_buf_puts(out, ") {");
        end_line(p, s->loc);
        print_body(p, s->then_s, depth + 1);
        indent(p, depth);
        if (s->else_s) {
            en_buf_puts(out, "} else {\n");
            print_body(p, s->else_s, depth + 1);
            indent(p, depth);
        }
        en_buf_puts(out, "}\n");
        return;
    case IR_S_LOOP: {
        int label = loop_label(p, s);
        if (label < 0) {
            label = p->loops.count;
            EN_PUSH(&p->arena, p->loops, s);
        }
        en_buf_printf(out, "loop L%d", label);
        if (s->unroll == -1) en_buf_puts(out, " unroll(full)");
        else if (s->unroll > 0) en_buf_printf(out, " unroll(%d)", s->unroll);
        en_buf_puts(out, " {");
        end_line(p, s->loc);
        print_body(p, s->body, depth + 1);
        indent(p, depth);
        if (s->latch) {
            en_buf_puts(out, "} latch {\n");
            print_body(p, s->latch, depth + 1);
            indent(p, depth);
        }
        en_buf_puts(out, "}\n");
        return;
    }
    case IR_S_BREAK:
    case IR_S_CONTINUE: {
        int label = loop_label(p, s->target);
        en_buf_puts(out, s->kind == IR_S_BREAK ? "break " : "continue ");
        if (label >= 0) en_buf_printf(out, "L%d", label);
        else en_buf_puts(out, "L?");
        end_line(p, s->loc);
        return;
    }
    case IR_S_RETURN:
        en_buf_puts(out, "return");
        if (s->value) {
            en_buf_putc(out, ' ');
            print_expr(p, s->value, true);
        }
        end_line(p, s->loc);
        return;
    case IR_S_INTRINSIC:
        if (s->result) {
            print_var(p, s->result);
            en_buf_puts(out, " = ");
        }
        en_buf_puts(out, ir_intrinsic_name(s->intrinsic));
        if (s->result) en_buf_printf(out, "<%s>", type_name(p, s->result->type));
        if (ir_intrinsic_class_of(s->intrinsic) == IR_IC_BARRIER && s->arg_count == 1 && s->args) {
            en_buf_putc(out, '(');
            print_mem_flags(p, s->args[0]);
            en_buf_putc(out, ')');
        } else if (ir_intrinsic_class_of(s->intrinsic) == IR_IC_FENCE && s->arg_count == 3 && s->args) {
            print_fence_args(p, s);
        } else {
            print_stmt_args(p, s->args, s->arg_count);
        }
        end_line(p, s->loc);
        return;
    case IR_S_CALL:
        if (s->result) {
            print_var(p, s->result);
            en_buf_puts(out, " = ");
        }
        en_buf_printf(out, "call %s", s->callee && s->callee->name ? s->callee->name : "<null>");
        print_stmt_args(p, s->args, s->arg_count);
        end_line(p, s->loc);
        return;
    }
    en_buf_printf(out, "<statement kind %d>\n", (int)s->kind);
}

/* ---- functions and the module ------------------------------------------------------ */
static void print_param(printer *p, const ir_var *v) {
    if (!v) {
        en_buf_puts(p->out, "<null param>");
        return;
    }
    en_buf_printf(p->out, "%s ", type_name(p, v->type));
    print_var(p, v);
    switch (v->param_kind) {
    case IR_PARAM_NONE: break;
    case IR_PARAM_BUFFER: en_buf_printf(p->out, " [[buffer(%d)]]", v->binding); break;
    case IR_PARAM_THREADGROUP: en_buf_printf(p->out, " [[threadgroup(%d)]]", v->binding); break;
    case IR_PARAM_ATTR: en_buf_printf(p->out, " [[%s]]", ir_attr_name(v->attr)); break;
    }
}

static void print_func(printer *p, const ir_func *f) {
    p->f = f;
    p->loops.count = 0;
    collect_dup_names(p);
    en_buf_printf(p->out, "%s %s %s(", f->is_kernel ? "kernel" : "func",
                  type_name(p, f->return_type), f->name ? f->name : "<null>");
    for (int i = 0; i < f->param_count; i++) {
        if (i) en_buf_puts(p->out, ", ");
        print_param(p, f->params[i]);
    }
    en_buf_putc(p->out, ')');
    if (f->max_total_threads_per_threadgroup)
        en_buf_printf(p->out, " [[max_total_threads_per_threadgroup(%u)]]",
                      f->max_total_threads_per_threadgroup);
    en_buf_puts(p->out, " {");
    end_line(p, f->loc);
    for (int i = 0; i < f->threadgroup_vars.count; i++) {
        const ir_var *v = f->threadgroup_vars.items[i];
        indent(p, 1);
        en_buf_printf(p->out, "threadgroup %s ", type_name(p, v->type));
        print_var(p, v);
        end_line(p, v->loc);
    }
    print_body(p, f->body, 1);
    en_buf_puts(p->out, "}\n");
    p->f = NULL;
}

static void printer_init(printer *p, const ir_module *m, en_buf *out, unsigned flags) {
    memset(p, 0, sizeof *p);
    p->m = m;
    p->out = out;
    p->flags = flags;
    en_arena_init(&p->arena);
}

void ir_print_func_flags(const ir_module *m, const ir_func *f, en_buf *out, unsigned flags) {
    printer p;
    printer_init(&p, m, out, flags);
    print_func(&p, f);
    en_arena_free(&p.arena);
}

void ir_print_module_flags(const ir_module *m, en_buf *out, unsigned flags) {
    printer p;
    printer_init(&p, m, out, flags);
    for (int i = 0; i < m->structs.count; i++) {
        const ir_type *s = m->structs.items[i];
        en_buf_printf(out, "struct %s  ; size %u, align %u\n", s->name, s->size, s->align);
        for (int k = 0; k < s->field_count; k++)
            en_buf_printf(out, "  %s %s  ; offset %u\n", type_name(&p, s->fields[k].type),
                          s->fields[k].name, s->fields[k].offset);
    }
    collect_dup_names(&p);
    for (int i = 0; i < m->globals.count; i++) {
        const ir_var *g = m->globals.items[i];
        en_buf_printf(out, "const %s ", type_name(&p, g->type));
        print_var(&p, g);
        if (g->init) {
            en_buf_puts(out, " = ");
            print_expr(&p, g->init, true);
        }
        end_line(&p, g->loc);
    }
    for (int i = 0; i < m->funcs.count; i++) {
        if (i || m->structs.count || m->globals.count) en_buf_putc(out, '\n');
        print_func(&p, m->funcs.items[i]);
    }
    en_arena_free(&p.arena);
}

void ir_print_module(const ir_module *m, en_buf *out) {
    ir_print_module_flags(m, out, IR_PRINT_LOCATIONS);
}

void ir_print_func(const ir_module *m, const ir_func *f, en_buf *out) {
    ir_print_func_flags(m, f, out, IR_PRINT_LOCATIONS);
}

void ir_print_expr(const ir_module *m, const ir_expr *e, en_buf *out) {
    printer p;
    printer_init(&p, m, out, 0);
    print_expr(&p, e, true);
    en_arena_free(&p.arena);
}
