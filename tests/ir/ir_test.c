/* ir_test.c — the IR's own tests, on IR built by hand with the ir.c builders (so they do
 * not depend on the front end): the printer against hand-written text, the verifier
 * against one malformed module per invariant, the inline pass, and the uniformity pass's
 * diagnostics. Run with no argument for all groups, or name groups: print verify inline
 * uniformity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "ir/ir.h"
#include "pass/pass.h"

static int failures, checks;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            failures++;                                                                    \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);             \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

/* ---- a fresh module per case ---------------------------------------------------------- */
static en_ctx ctx;
static ir_module *m;
static bool ctx_live;

static void fresh(void) {
    if (ctx_live) en_ctx_free(&ctx);
    en_ctx_init(&ctx);
    ctx_live = true;
    const char *text = "// hand-built IR\n";
    en_source_add(&ctx.sources, "t.metal", text, strlen(text));
    m = ir_module_new(&ctx.arena, &ctx.sources);
}

static en_loc at(int line, int col) { return (en_loc){0, line, col}; }
static const en_loc nowhere = {0, 1, 1};

static ir_type *ty(ir_type_kind k) { return ir_type_scalar(m, k); }
static ir_type *f32(void) { return ty(IR_T_F32); }
static ir_type *i32(void) { return ty(IR_T_I32); }
static ir_type *u32(void) { return ty(IR_T_U32); }
static ir_type *boolean(void) { return ty(IR_T_BOOL); }
static ir_type *vec(ir_type *e, int n) { return ir_type_vec(m, e, (uint32_t)n, false); }
static ir_type *ptr(ir_type *e, ir_space s) { return ir_type_ptr(m, e, s, false); }

static ir_var *param(ir_func *f, const char *name, ir_type *t) {
    ir_var *v = ir_var_new(m, f, name, t, nowhere);
    ir_var **arr = en_alloc(m->arena, sizeof(ir_var *) * (size_t)(f->param_count + 1));
    if (f->param_count) memcpy(arr, f->params, sizeof(ir_var *) * (size_t)f->param_count);
    arr[f->param_count++] = v;
    f->params = arr;
    return v;
}

static ir_var *buffer(ir_func *f, const char *name, ir_type *t, int binding) {
    ir_var *v = param(f, name, t);
    v->param_kind = IR_PARAM_BUFFER;
    v->binding = binding;
    return v;
}

static ir_var *attr(ir_func *f, const char *name, ir_type *t, ir_attr a) {
    ir_var *v = param(f, name, t);
    v->param_kind = IR_PARAM_ATTR;
    v->attr = a;
    return v;
}

static ir_func *kernel(const char *name) {
    ir_func *f = ir_func_new(m, name, at(1, 1));
    f->is_kernel = true;
    return f;
}

static ir_expr *ref(ir_var *v) { return ir_var_ref(m, v, nowhere); }
static ir_expr *refat(ir_var *v, int line, int col) { return ir_var_ref(m, v, at(line, col)); }
static ir_expr *ci(int64_t v) { return ir_const_int(m, i32(), v, nowhere); }
static ir_expr *cu(uint64_t v) { return ir_const_uint(m, u32(), v, nowhere); }
static ir_expr *cf(double v) { return ir_const_float(m, f32(), v, nowhere); }
static ir_expr *bin(ir_op op, ir_expr *a, ir_expr *b) {
    bool cmp = op >= IR_OP_EQ && op <= IR_OP_GE;
    return ir_binary(m, op, cmp ? boolean() : a->type, a, b, nowhere);
}
static ir_expr *binat(ir_op op, ir_expr *a, ir_expr *b, int line, int col) {
    ir_expr *e = bin(op, a, b);
    e->loc = at(line, col);
    return e;
}
static ir_expr *idx(ir_expr *base, ir_expr *i) {
    ir_type *t = base->type->elem;
    return ir_index(m, t, base, i, nowhere);
}

static void add(ir_stmt *block, ir_stmt *s) { ir_block_append(m, block, s); }
static ir_stmt *blk(void) { return ir_block(m, nowhere); }
static ir_stmt *set(ir_expr *place, ir_expr *value) { return ir_assign(m, place, value, nowhere); }
static ir_stmt *setat(ir_expr *place, ir_expr *value, int line) {
    return ir_assign(m, place, value, at(line, 3));
}
static ir_var *local(ir_func *f, ir_stmt *block, const char *name, ir_type *t, ir_expr *init) {
    ir_var *v = ir_var_new(m, f, name, t, nowhere);
    add(block, ir_decl(m, f, v, init, nowhere));
    return v;
}
static ir_stmt *loop_new(int line) { return ir_stmt_new(m, IR_S_LOOP, at(line, 3)); }
static ir_stmt *jump(ir_stmt_kind k, ir_stmt *target) {
    ir_stmt *s = ir_stmt_new(m, k, nowhere);
    s->target = target;
    return s;
}
static ir_stmt *ret(ir_expr *v) {
    ir_stmt *s = ir_stmt_new(m, IR_S_RETURN, nowhere);
    s->value = v;
    return s;
}
static ir_stmt *barrier_at(int line) {
    ir_expr *flags = cu(IR_MEM_THREADGROUP);
    return ir_intrinsic_stmt(m, IR_I_BARRIER_THREADGROUP, NULL, &flags, 1, at(line, 5));
}
static ir_stmt *call(ir_func *callee, ir_var *result, ir_expr **args, int n, int line) {
    ir_stmt *s = ir_stmt_new(m, IR_S_CALL, at(line, 7));
    s->callee = callee;
    s->result = result;
    s->args = en_alloc(m->arena, sizeof(ir_expr *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) s->args[i] = args[i];
    s->arg_count = n;
    return s;
}

static char *print_func(const ir_func *f, unsigned flags) {
    en_buf b = {0};
    ir_print_func_flags(m, f, &b, flags);
    return en_buf_take(&b);
}

static void check_text(const char *what, char *got, const char *want) {
    CHECK(got && strcmp(got, want) == 0, "%s: printed\n----\n%s----\nexpected\n----\n%s----", what,
          got ? got : "(null)", want);
    free(got);
}

static char *all_diags(void) {
    en_buf b = {0};
    for (int i = 0; i < ctx.diags.items.count; i++) {
        en_buf_puts(&b, ctx.diags.items.items[i].message);
        en_buf_putc(&b, '\n');
    }
    char *s = en_buf_take(&b);
    return s ? s : calloc(1, 1);
}

static bool has_diag(en_severity sev, const char *message, int line) {
    for (int i = 0; i < ctx.diags.items.count; i++) {
        const en_diag *g = &ctx.diags.items.items[i];
        if (g->severity == sev && strcmp(g->message, message) == 0 && (line <= 0 || g->loc.line == line))
            return true;
    }
    return false;
}

/* ---- a small kernel used by many cases:
 *   kernel void k(device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) */
typedef struct base_kernel {
    ir_func *f;
    ir_var *out, *gid;
    ir_stmt *body;
} base_kernel;

static base_kernel make_base(void) {
    base_kernel k;
    k.f = kernel("k");
    k.out = buffer(k.f, "out", ptr(f32(), IR_SPACE_DEVICE), 0);
    k.gid = attr(k.f, "gid", u32(), IR_ATTR_THREAD_POSITION_IN_GRID);
    k.body = k.f->body;
    return k;
}

/* ======================================================================================= */
static void test_print(void) {
    /* 1. a kernel with an if/else, loads and stores, no locations */
    fresh();
    {
        ir_func *f = kernel("scale");
        ir_var *out = buffer(f, "out", ptr(f32(), IR_SPACE_DEVICE), 0);
        ir_var *in = buffer(f, "in", ir_type_ptr(m, f32(), IR_SPACE_CONSTANT, true), 1);
        ir_var *gid = attr(f, "gid", u32(), IR_ATTR_THREAD_POSITION_IN_GRID);
        ir_var *x = local(f, f->body, "x", f32(), idx(ref(in), ref(gid)));
        ir_stmt *then_s = blk(), *else_s = blk();
        add(then_s, set(idx(ref(out), ref(gid)), bin(IR_OP_MUL, ref(x), cf(2.0))));
        add(else_s, set(idx(ref(out), ref(gid)), ir_unary(m, IR_OP_NEG, f32(), ref(x), nowhere)));
        add(f->body, ir_if(m, bin(IR_OP_GT, ref(x), cf(0.0)), then_s, else_s, nowhere));
        check_text("if/else kernel", print_func(f, 0),
                   "kernel void scale(device float* out [[buffer(0)]], constant const float* in "
                   "[[buffer(1)]], uint gid [[thread_position_in_grid]]) {\n"
                   "  float x = in[gid]\n"
                   "  if (x > 0.0f) {\n"
                   "    out[gid] = x * 2.0f\n"
                   "  } else {\n"
                   "    out[gid] = -x\n"
                   "  }\n"
                   "}\n");
        CHECK(ir_verify(m, &ctx.diags, "check"), "well-formed kernel rejected:\n%s", all_diags());
    }

    /* 2. loops with labels, latch, unroll, break/continue, threadgroup memory, intrinsics,
     *    conversions and locations */
    fresh();
    {
        ir_func *f = kernel("reduce");
        ir_var *total = buffer(f, "total", ptr(ir_type_atomic(m, i32()), IR_SPACE_DEVICE), 0);
        ir_var *lid = attr(f, "lid", u32(), IR_ATTR_THREAD_INDEX_IN_THREADGROUP);
        f->max_total_threads_per_threadgroup = 64;
        ir_var *tile = ir_var_new(m, f, "tile", ir_type_array(m, i32(), 32), at(2, 3));
        tile->storage = IR_VAR_THREADGROUP;
        EN_PUSH(m->arena, f->threadgroup_vars, tile);
        ir_var *acc = ir_var_new(m, f, "acc", i32(), at(3, 3));
        add(f->body, ir_decl(m, f, acc, ci(0), at(3, 3)));
        ir_stmt *outer = loop_new(4);
        outer->unroll = 4;
        outer->body = blk();
        ir_stmt *stop = blk();
        add(stop, jump(IR_S_BREAK, outer));
        add(outer->body, ir_if(m, bin(IR_OP_GE, ref(acc), ci(10)), stop, NULL, at(5, 5)));
        ir_stmt *inner = loop_new(6);
        inner->unroll = -1;
        inner->body = blk();
        ir_stmt *skip = blk();
        add(skip, jump(IR_S_CONTINUE, outer));
        add(inner->body, ir_if(m, bin(IR_OP_EQ, ref(acc), ci(3)), skip, NULL, at(7, 7)));
        add(inner->body, jump(IR_S_BREAK, inner));
        add(outer->body, inner);
        add(outer->body, setat(ref(acc), bin(IR_OP_ADD, ref(acc), ir_convert(m, i32(), ref(lid), nowhere)), 9));
        outer->latch = blk();
        add(outer->latch, setat(ref(acc), bin(IR_OP_ADD, ref(acc), ci(1)), 10));
        add(f->body, outer);
        add(f->body, setat(ir_index(m, i32(), ref(tile), ref(lid), nowhere), ref(acc), 12));
        add(f->body, barrier_at(13));
        ir_var *old = ir_temp(m, f, i32(), at(14, 3));
        add(f->body, ir_decl(m, f, old, NULL, at(14, 3)));
        ir_expr *args[2] = {ref(total), ir_index(m, i32(), ref(tile), cu(0), nowhere)};
        add(f->body, ir_intrinsic_stmt(m, IR_I_ATOMIC_FETCH_ADD, old, args, 2, at(14, 3)));
        ir_expr *sq = ir_convert(m, f32(), ref(old), nowhere);
        ir_expr *root = ir_call(m, IR_I_SQRT, f32(), &sq, 1, nowhere);
        root->precise = true;
        ir_var *r = ir_var_new(m, f, "r", f32(), at(15, 3));
        add(f->body, ir_decl(m, f, r, root, at(15, 3)));
        ir_stmt *done = ir_stmt_new(m, IR_S_RETURN, at(16, 3));
        add(f->body, done);
        check_text("loops and intrinsics", print_func(f, IR_PRINT_LOCATIONS),
                   "kernel void reduce(device atomic_int* total [[buffer(0)]], uint lid "
                   "[[thread_index_in_threadgroup]]) [[max_total_threads_per_threadgroup(64)]] {  ; @1:1\n"
                   "  threadgroup int[32] tile  ; @2:3\n"
                   "  int acc = 0  ; @3:3\n"
                   "  loop L0 unroll(4) {  ; @4:3\n"
                   "    if (acc >= 10) {  ; @5:5\n"
                   "      break L0  ; @1:1\n"
                   "    }\n"
                   "    loop L1 unroll(full) {  ; @6:3\n"
                   "      if (acc == 3) {  ; @7:7\n"
                   "        continue L0  ; @1:1\n"
                   "      }\n"
                   "      break L1  ; @1:1\n"
                   "    }\n"
                   "    acc = acc + convert<int>(lid)  ; @9:3\n"
                   "  } latch {\n"
                   "    acc = acc + 1  ; @10:3\n"
                   "  }\n"
                   "  tile[lid] = acc  ; @12:3\n"
                   "  threadgroup_barrier(mem_threadgroup)  ; @13:5\n"
                   "  int t4  ; @14:3\n"
                   "  t4 = atomic_fetch_add_explicit<int>(total, tile[0u])  ; @14:3\n"
                   "  float r = precise::sqrt<float>(convert<float>(t4))  ; @15:3\n"
                   "  return  ; @16:3\n"
                   "}\n");
        CHECK(ir_verify(m, &ctx.diags, "inline"), "well-formed kernel rejected:\n%s", all_diags());
    }

    /* 3. a module: struct, global constant, helper with a call, shared names, vectors,
     *    swizzles, selects, constants of every kind */
    fresh();
    {
        ir_type *s = ir_type_struct(m, "Particle");
        s->fields = en_alloc(m->arena, sizeof(ir_field) * 2);
        s->fields[0] = (ir_field){.name = "pos", .type = vec(f32(), 3)};
        s->fields[1] = (ir_field){.name = "mass", .type = f32()};
        s->field_count = 2;
        ir_struct_layout(s);
        ir_var *table = ir_var_new(m, NULL, "table", ir_type_array(m, f32(), 2), at(2, 1));
        ir_expr *init = ir_expr_new(m, IR_E_AGGREGATE, table->type, nowhere, 2);
        init->args[0] = cf(0.5);
        init->args[1] = cf(-3.25);
        table->init = init;
        EN_PUSH(m->arena, m->globals, table);

        ir_func *h = ir_func_new(m, "weigh", at(3, 1));
        h->return_type = f32();
        ir_var *p = param(h, "p", ptr(s, IR_SPACE_DEVICE));
        ir_expr *fld = ir_expr_new(m, IR_E_FIELD, f32(), nowhere, 1);
        fld->field = 1;
        fld->args[0] = ir_deref(m, ref(p), nowhere);
        ir_expr *pos = ir_expr_new(m, IR_E_FIELD, vec(f32(), 3), nowhere, 1);
        pos->field = 0;
        pos->args[0] = ir_deref(m, ref(p), nowhere);
        ir_expr *yz = ir_expr_new(m, IR_E_SWIZZLE, vec(f32(), 2), nowhere, 1);
        yz->args[0] = pos;
        yz->swizzle[0] = 1;
        yz->swizzle[1] = 2;
        yz->swizzle_len = 2;
        ir_var *x = local(h, h->body, "x", vec(f32(), 2), yz);
        ir_stmt *inner = blk();
        ir_expr *sel = ir_expr_new(m, IR_E_SELECT, f32(), nowhere, 3);
        sel->args[0] = bin(IR_OP_LT, fld, cf(1.0));
        sel->args[1] = ir_index(m, f32(), ir_var_ref(m, table, nowhere), ci(0), nowhere);
        sel->args[2] = ir_index(m, f32(), ref(x), ci(1), nowhere);
        ir_var *x2 = local(h, inner, "x", f32(), sel);
        add(inner, ret(ref(x2)));
        add(h->body, inner);

        ir_func *k = kernel("run");
        ir_var *ps = buffer(k, "ps", ptr(s, IR_SPACE_DEVICE), 0);
        ir_var *halves = buffer(k, "halves", ptr(ty(IR_T_F16), IR_SPACE_DEVICE), 1);
        ir_var *w = local(k, k->body, "w", f32(), NULL);
        ir_expr *a = ir_expr_new(m, IR_E_PTR_OFFSET, ps->type, nowhere, 2);
        a->args[0] = ref(ps);
        a->args[1] = ir_const_int(m, ty(IR_T_I64), -2, nowhere);
        add(k->body, call(h, w, &a, 1, 5));
        ir_expr *v4 = ir_expr_new(m, IR_E_VECTOR, vec(ty(IR_T_F16), 4), nowhere, 4);
        v4->args[0] = ir_const_float(m, ty(IR_T_F16), 1.5, nowhere);
        v4->args[1] = ir_convert(m, ty(IR_T_F16), ref(w), nowhere);
        v4->args[2] = ir_const_float(m, ty(IR_T_F16), 0.0999755859375, nowhere); /* half(0.1) */
        v4->args[3] = ir_const_float(m, ty(IR_T_F16), 65504, nowhere);
        ir_var *hv = local(k, k->body, "hv", vec(ty(IR_T_F16), 4), v4);
        ir_expr *bits = ir_expr_new(m, IR_E_BITCAST, vec(u32(), 2), nowhere, 1);
        bits->args[0] = ref(hv);
        ir_var *u = local(k, k->body, "u", vec(u32(), 2), bits);
        ir_expr *sp = ir_expr_new(m, IR_E_SPLAT, vec(u32(), 2), nowhere, 1);
        sp->args[0] = cu(7);
        add(k->body, set(ref(u), bin(IR_OP_XOR, ref(u), sp)));
        ir_expr *lanes = ir_expr_new(m, IR_E_SWIZZLE, ty(IR_T_F16), nowhere, 1);
        lanes->args[0] = ref(hv);
        lanes->swizzle[0] = 3;
        lanes->swizzle_len = 1;
        add(k->body, set(idx(ref(halves), ir_const_uint(m, ty(IR_T_U64), 9, nowhere)), lanes));
        local(k, k->body, "neg", f32(), ir_unary(m, IR_OP_NEG, f32(), cf(-0.0), nowhere));
        ir_var *flag = local(k, k->body, "flag", boolean(),
                             ir_unary(m, IR_OP_NOT, boolean(), ir_const_bool(m, false, nowhere), nowhere));
        (void)flag;
        local(k, k->body, "small", ty(IR_T_U16), ir_const_uint(m, ty(IR_T_U16), 65535, nowhere));
        local(k, k->body, "b", ty(IR_T_BF16), ir_const_float(m, ty(IR_T_BF16), 2.0, nowhere));

        en_buf b = {0};
        ir_print_module_flags(m, &b, 0);
        check_text("module", en_buf_take(&b),
                   "struct Particle  ; size 32, align 16\n"
                   "  float3 pos  ; offset 0\n"
                   "  float mass  ; offset 16\n"
                   "const float[2] @table = float[2]{0.5f, -3.25f}\n"
                   "\n"
                   "func float weigh(device Particle* p) {\n"
                   "  float2 x.1 = (*p).pos.yz\n"
                   "  {\n"
                   "    float x.2 = (((*p).mass < 1.0f) ? @table[0] : x.1[1])\n"
                   "    return x.2\n"
                   "  }\n"
                   "}\n"
                   "\n"
                   "kernel void run(device Particle* ps [[buffer(0)]], device half* halves [[buffer(1)]]) {\n"
                   "  float w\n"
                   "  w = call weigh((ps +> -2l))\n"
                   "  half4 hv = half4(1.5h, convert<half>(w), 0.0999755859375h, 65504.0h)\n"
                   "  uint2 u = as_type<uint2>(hv)\n"
                   "  u = u ^ splat<uint2>(7u)\n"
                   "  halves[9ul] = hv.w\n"
                   "  float neg = -(-0.0f)\n"
                   "  bool flag = !false\n"
                   "  ushort small = ushort(65535)\n"
                   "  bfloat b = 2.0bf\n"
                   "}\n");
        CHECK(ir_verify(m, &ctx.diags, "check"), "well-formed module rejected:\n%s", all_diags());
        en_buf e = {0};
        ir_print_expr(m, sel, &e);
        check_text("expression", en_buf_take(&e), "(((*p).mass < 1.0f) ? @table[0] : x[1])");
    }
}

/* ======================================================================================= */
/* Each case builds the base kernel, breaks one invariant, and expects one message. */
typedef void (*break_fn)(base_kernel *k);
static int expected_errors = 1; /* how many errors the next case reports */

static void expect_rejected(const char *name, break_fn breaker, const char *pass, const char *what,
                            int line) {
    fresh();
    base_kernel k = make_base();
    breaker(&k);
    bool ok = ir_verify(m, &ctx.diags, pass);
    char *want = NULL;
    size_t n = strlen(what) + strlen(pass) + 64;
    want = malloc(n);
    snprintf(want, n, "internal error: IR verifier (after %s): %s", pass, what);
    char *got = all_diags();
    CHECK(!ok, "%s: accepted", name);
    CHECK(has_diag(EN_ERROR, want, line), "%s: expected \"%s\" at line %d, got:\n%s", name, want, line, got);
    /* nothing else: the breakage is reported once, the rest of the module is fine */
    CHECK(ctx.diags.errors == expected_errors, "%s: %d errors:\n%s", name, ctx.diags.errors, got);
    expected_errors = 1;
    free(got);
    free(want);
}

static void b_untyped(base_kernel *k) {
    ir_expr *e = bin(IR_OP_ADD, cf(1), cf(2));
    e->type = NULL;
    e->loc = at(7, 9);
    local(k->f, k->body, "x", f32(), NULL);
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_mixed_operands(base_kernel *k) {
    add(k->body, set(idx(ref(k->out), ref(k->gid)), binat(IR_OP_ADD, cf(1), ci(2), 3, 4)));
}
static void b_compare_not_bool(base_kernel *k) {
    ir_expr *e = ir_binary(m, IR_OP_LT, f32(), cf(1), cf(2), at(4, 4));
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_compare_lanes(base_kernel *k) {
    ir_var *v = local(k->f, k->body, "v", vec(f32(), 4), NULL);
    ir_expr *e = ir_binary(m, IR_OP_LT, boolean(), ref(v), ref(v), at(5, 2));
    local(k->f, k->body, "b", boolean(), e);
}
static void b_bitcast_size(base_kernel *k) {
    ir_expr *e = ir_expr_new(m, IR_E_BITCAST, u32(), at(6, 1), 1);
    e->args[0] = ir_const_float(m, ty(IR_T_F16), 1.0, nowhere);
    local(k->f, k->body, "u", u32(), e);
}
static void b_convert_lanes(base_kernel *k) {
    ir_var *v = local(k->f, k->body, "v", vec(f32(), 4), NULL);
    ir_expr *e = ir_expr_new(m, IR_E_CONVERT, f32(), at(7, 1), 1);
    e->args[0] = ref(v);
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_splat(base_kernel *k) {
    ir_expr *e = ir_expr_new(m, IR_E_SPLAT, vec(f32(), 4), at(8, 1), 1);
    e->args[0] = ci(1);
    local(k->f, k->body, "v", vec(f32(), 4), e);
}
static void b_index_scalar(base_kernel *k) {
    ir_var *x = local(k->f, k->body, "x", f32(), cf(1));
    ir_expr *e = ir_index(m, f32(), ref(x), ci(0), at(9, 1));
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_field(base_kernel *k) {
    ir_type *s = ir_type_struct(m, "S");
    s->fields = en_alloc(m->arena, sizeof(ir_field) * 2);
    s->fields[0] = (ir_field){.name = "a", .type = f32()};
    s->fields[1] = (ir_field){.name = "b", .type = f32()};
    s->field_count = 2;
    ir_struct_layout(s);
    ir_var *x = local(k->f, k->body, "x", s, NULL);
    ir_expr *e = ir_expr_new(m, IR_E_FIELD, f32(), at(10, 1), 1);
    e->field = 3;
    e->args[0] = ref(x);
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_swizzle_lane(base_kernel *k) {
    ir_var *v = local(k->f, k->body, "v", vec(f32(), 2), NULL);
    ir_expr *e = ir_expr_new(m, IR_E_SWIZZLE, f32(), at(11, 1), 1);
    e->args[0] = ref(v);
    e->swizzle[0] = 2;
    e->swizzle_len = 1;
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_swizzle_repeat(base_kernel *k) {
    ir_var *v = local(k->f, k->body, "v", vec(f32(), 2), NULL);
    ir_expr *e = ir_expr_new(m, IR_E_SWIZZLE, vec(f32(), 2), at(12, 1), 1);
    e->args[0] = ref(v);
    e->swizzle_len = 2; /* .xx */
    ir_expr *sp = ir_expr_new(m, IR_E_SPLAT, vec(f32(), 2), nowhere, 1);
    sp->args[0] = cf(1);
    add(k->body, set(e, sp));
}
static void b_store_constant(base_kernel *k) {
    ir_var *in = buffer(k->f, "in", ptr(f32(), IR_SPACE_CONSTANT), 1);
    add(k->body, setat(idx(ref(in), ref(k->gid)), cf(1), 13));
}
static void b_store_const_ptr(base_kernel *k) {
    ir_var *in = buffer(k->f, "in", ir_type_ptr(m, f32(), IR_SPACE_DEVICE, true), 1);
    add(k->body, setat(ir_deref(m, ref(in), nowhere), cf(1), 14));
}
static void b_store_global(base_kernel *k) {
    ir_var *g = ir_var_new(m, NULL, "g", f32(), nowhere);
    g->init = cf(2);
    EN_PUSH(m->arena, m->globals, g);
    add(k->body, setat(ref(g), cf(1), 15));
}
static void b_assign_type(base_kernel *k) {
    add(k->body, setat(idx(ref(k->out), ref(k->gid)), ci(1), 16));
}
static void b_assign_value(base_kernel *k) {
    add(k->body, setat(bin(IR_OP_ADD, cf(1), cf(2)), cf(1), 17));
}
static void b_if_cond(base_kernel *k) {
    add(k->body, ir_if(m, ci(1), blk(), NULL, at(18, 3)));
}
static void b_if_vector_cond(base_kernel *k) {
    ir_var *v = local(k->f, k->body, "v", vec(boolean(), 2), NULL);
    add(k->body, ir_if(m, ref(v), blk(), NULL, at(19, 3)));
}
static void b_break_outside(base_kernel *k) {
    ir_stmt *l = loop_new(20);
    l->body = blk();
    add(l->body, jump(IR_S_BREAK, l));
    add(k->body, l);
    ir_stmt *stray = jump(IR_S_BREAK, l);
    stray->loc = at(21, 3);
    add(k->body, stray);
}
static void b_continue_not_loop(base_kernel *k) {
    ir_stmt *b = blk();
    ir_stmt *l = loop_new(22);
    l->body = blk();
    ir_stmt *c = jump(IR_S_CONTINUE, b);
    c->loc = at(22, 9);
    add(l->body, c);
    add(l->body, jump(IR_S_BREAK, l));
    add(k->body, l);
}
static void b_continue_in_latch(base_kernel *k) {
    ir_stmt *l = loop_new(23);
    l->body = blk();
    add(l->body, jump(IR_S_BREAK, l));
    l->latch = jump(IR_S_CONTINUE, l);
    l->latch->loc = at(23, 20);
    add(k->body, l);
}
static void b_return_value_in_kernel(base_kernel *k) {
    ir_stmt *r = ret(cf(1));
    r->loc = at(24, 3);
    add(k->body, r);
}
static void b_helper_return(base_kernel *k) {
    ir_func *h = ir_func_new(m, "h", at(25, 1));
    h->return_type = f32();
    ir_stmt *r = ret(ci(1));
    r->loc = at(25, 20);
    add(h->body, r);
}
static void b_helper_return_missing(base_kernel *k) {
    ir_func *h = ir_func_new(m, "h", at(26, 1));
    h->return_type = f32();
    ir_stmt *r = ret(NULL);
    r->loc = at(26, 20);
    add(h->body, r);
}
static void b_call_after_inline(base_kernel *k) {
    ir_func *h = ir_func_new(m, "h", at(27, 1));
    add(k->body, call(h, NULL, NULL, 0, 27));
}
static void b_call_arg_type(base_kernel *k) {
    ir_func *h = ir_func_new(m, "h", at(28, 1));
    param(h, "x", f32());
    ir_expr *a = ci(1);
    add(k->body, call(h, NULL, &a, 1, 28));
}
static void b_call_kernel(base_kernel *k) {
    ir_expr *args[2] = {ref(k->out), ref(k->gid)};
    add(k->body, call(k->f, NULL, args, 2, 29));
}
static void b_impure_expr(base_kernel *k) {
    ir_expr *a = cf(1);
    ir_expr *e = ir_call(m, IR_I_SIMD_SUM, f32(), &a, 1, at(30, 5));
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_pure_stmt(base_kernel *k) {
    ir_expr *a = cf(1);
    ir_var *r = local(k->f, k->body, "r", f32(), NULL);
    add(k->body, ir_intrinsic_stmt(m, IR_I_SQRT, r, &a, 1, at(31, 5)));
}
static void b_atomic_target(base_kernel *k) {
    ir_expr *args[2] = {ref(k->out), cf(1)};
    ir_var *r = local(k->f, k->body, "r", f32(), NULL);
    add(k->body, ir_intrinsic_stmt(m, IR_I_ATOMIC_FETCH_ADD, r, args, 2, at(32, 5)));
}
static void b_unbound_param(base_kernel *k) {
    ir_var *p = param(k->f, "p", ptr(f32(), IR_SPACE_DEVICE));
    p->loc = at(33, 20);
}
static void b_duplicate_binding(base_kernel *k) {
    ir_var *p = buffer(k->f, "again", ptr(f32(), IR_SPACE_DEVICE), 0);
    p->loc = at(34, 20);
}
static void b_use_before_decl(base_kernel *k) {
    ir_var *y = ir_var_new(m, k->f, "y", f32(), nowhere);
    add(k->body, set(idx(ref(k->out), ref(k->gid)), refat(y, 35, 15)));
    add(k->body, ir_decl(m, k->f, y, cf(1), nowhere));
}
static void b_use_outside_scope(base_kernel *k) {
    ir_stmt *inner = blk();
    ir_var *y = local(k->f, inner, "y", f32(), cf(1));
    add(k->body, inner);
    add(k->body, set(idx(ref(k->out), ref(k->gid)), refat(y, 36, 15)));
}
static void b_declared_twice(base_kernel *k) {
    ir_var *y = local(k->f, k->body, "y", f32(), cf(1));
    add(k->body, ir_decl(m, NULL, y, cf(2), at(37, 3)));
}
static void b_null_operand(base_kernel *k) {
    ir_expr *e = bin(IR_OP_ADD, cf(1), cf(2));
    e->args[1] = NULL;
    e->loc = at(38, 11);
    add(k->body, set(idx(ref(k->out), ref(k->gid)), e));
}
static void b_null_intrinsic_arg(base_kernel *k) {
    ir_expr *none = NULL;
    add(k->body, ir_intrinsic_stmt(m, IR_I_BARRIER_THREADGROUP, NULL, &none, 1, at(39, 3)));
}
static void b_kernel_returns_value(base_kernel *k) {
    k->f->return_type = f32();
}
static void b_var_type(base_kernel *k) {
    ir_var *x = local(k->f, k->body, "x", f32(), cf(1));
    ir_expr *r = refat(x, 40, 8);
    r->type = i32();
    local(k->f, k->body, "y", i32(), r);
}
static void b_select_arms(base_kernel *k) {
    ir_expr *s = ir_expr_new(m, IR_E_SELECT, f32(), at(41, 3), 3);
    s->args[0] = ir_const_bool(m, true, nowhere);
    s->args[1] = cf(1);
    s->args[2] = ci(2);
    add(k->body, set(idx(ref(k->out), ref(k->gid)), s));
}
static void b_atomic_assign(base_kernel *k) {
    ir_var *a = buffer(k->f, "counter", ptr(ir_type_atomic(m, i32()), IR_SPACE_DEVICE), 1);
    ir_expr *place = ir_deref(m, ref(a), nowhere);
    add(k->body, setat(place, ir_deref(m, ref(a), nowhere), 42));
}
static void b_helper_in_module_after_inline(base_kernel *k) {
    ir_func *h = ir_func_new(m, "leftover", at(43, 1));
    (void)h;
}
static void b_loop_without_body(base_kernel *k) {
    add(k->body, loop_new(44));
}
static void b_simd_result_type(base_kernel *k) {
    ir_var *r = local(k->f, k->body, "r", i32(), NULL);
    ir_expr *a = cf(1);
    add(k->body, ir_intrinsic_stmt(m, IR_I_SIMD_SHUFFLE_DOWN, r, &a, 1, at(46, 5)));
}
static void b_atomic_result_type(base_kernel *k) {
    ir_var *c = buffer(k->f, "counter", ptr(ir_type_atomic(m, u32()), IR_SPACE_DEVICE), 1);
    ir_var *r = local(k->f, k->body, "r", f32(), NULL);
    ir_expr *args[2] = {ref(c), cu(1)};
    add(k->body, ir_intrinsic_stmt(m, IR_I_ATOMIC_FETCH_ADD, r, args, 2, at(47, 5)));
}
static void b_vector_arity(base_kernel *k) {
    ir_expr *v = ir_expr_new(m, IR_E_VECTOR, vec(f32(), 4), at(45, 3), 3);
    v->args[0] = cf(1);
    v->args[1] = cf(2);
    v->args[2] = cf(3);
    local(k->f, k->body, "v", vec(f32(), 4), v);
}

static void test_verify(void) {
    const char *after = "inline";
    expect_rejected("untyped", b_untyped, after, "binary operation has no type", 7);
    expect_rejected("mixed operands", b_mixed_operands, after,
                    "operands of '+' have different types: float and int", 3);
    expect_rejected("comparison type", b_compare_not_bool, after,
                    "comparison '<' of float has type float, not bool", 4);
    expect_rejected("comparison lanes", b_compare_lanes, after,
                    "comparison '<' of float4 has type bool, not bool4", 5);
    expect_rejected("bitcast size", b_bitcast_size, after,
                    "bitcast from half (2 bytes) to uint (4 bytes)", 6);
    expect_rejected("convert lanes", b_convert_lanes, after,
                    "conversion from float4 to float changes the number of lanes", 7);
    expect_rejected("splat", b_splat, after, "splat of int to float4", 8);
    expect_rejected("index base", b_index_scalar, after,
                    "index base of type float is not an array, vector or pointer", 9);
    expect_rejected("field index", b_field, after, "field 3 of S, which has 2 fields", 10);
    expect_rejected("swizzle lane", b_swizzle_lane, after, "swizzle lane 2 of float2, which has 2 lanes", 11);
    expect_rejected("written swizzle repeats", b_swizzle_repeat, after,
                    "assignment to a swizzle that repeats a lane", 12);
    expect_rejected("store to constant space", b_store_constant, after,
                    "assignment to constant address space memory", 13);
    expect_rejected("store through const pointer", b_store_const_ptr, after,
                    "assignment to memory behind a pointer to const (device const float*)", 14);
    expect_rejected("store to global constant", b_store_global, after, "assignment to the constant 'g'", 15);
    expect_rejected("assignment type", b_assign_type, after, "assignment of int to a place of type float", 16);
    expect_rejected("assignment to a value", b_assign_value, after,
                    "assignment to a binary operation, which is not a place", 17);
    expect_rejected("if condition", b_if_cond, after, "if condition of type int, not bool", 18);
    expect_rejected("if vector condition", b_if_vector_cond, after, "if condition of type bool2, not bool", 19);
    expect_rejected("break outside", b_break_outside, after, "break out of a loop that does not enclose it", 21);
    expect_rejected("continue to a block", b_continue_not_loop, after, "continue whose target is not a loop", 22);
    expect_rejected("continue in latch", b_continue_in_latch, after, "continue from the latch of its own loop", 23);
    expect_rejected("kernel returns value", b_return_value_in_kernel, after,
                    "return of float from 'k', which returns void", 24);
    expect_rejected("helper return type", b_helper_return, "check", "return of int from 'h', which returns float", 25);
    expect_rejected("helper return missing", b_helper_return_missing, "check",
                    "return without a value from 'h', which returns float", 26);
    expected_errors = 2; /* the call, and the helper it calls */
    expect_rejected("call after inline", b_call_after_inline, after, "function call statement left after inlining", 27);
    expect_rejected("call argument type", b_call_arg_type, "check",
                    "argument 0 of call to 'h' has type int, not float", 28);
    expect_rejected("call of a kernel", b_call_kernel, "check", "call to the kernel 'k'", 29);
    expect_rejected("impure expression", b_impure_expr, after,
                    "intrinsic 'simd_sum' in an expression is not pure; it must be a statement", 30);
    expect_rejected("pure statement", b_pure_stmt, after,
                    "pure intrinsic 'sqrt' as a statement; it must be an expression", 31);
    expect_rejected("atomic target", b_atomic_target, after,
                    "'atomic_fetch_add_explicit' on device float*, not a pointer to an atomic", 32);
    expect_rejected("unbound parameter", b_unbound_param, after,
                    "kernel parameter 'p' has no [[buffer]], [[threadgroup]] or attribute", 33);
    expect_rejected("duplicate binding", b_duplicate_binding, after, "two buffer parameters have binding 0", 34);
    expect_rejected("use before declaration", b_use_before_decl, after, "variable 'y' used outside its scope", 35);
    expect_rejected("use outside scope", b_use_outside_scope, after, "variable 'y' used outside its scope", 36);
    expect_rejected("declared twice", b_declared_twice, after, "'y' is declared twice", 37);
    expect_rejected("NULL operand", b_null_operand, after, "binary operation has no operand 1", 38);
    expect_rejected("NULL intrinsic argument", b_null_intrinsic_arg, after,
                    "argument 0 of threadgroup_barrier is missing", 39);
    expect_rejected("kernel return type", b_kernel_returns_value, after, "kernel 'k' returns float, not void", 1);
    expect_rejected("variable type", b_var_type, after,
                    "reference to 'x' has type int, but the variable has type float", 40);
    expect_rejected("select arms", b_select_arms, after, "select arms of types float and int for float", 41);
    expect_rejected("assignment to an atomic", b_atomic_assign, after,
                    "assignment to an atomic atomic_int; atomics change only through atomic functions", 42);
    expect_rejected("helper after inline", b_helper_in_module_after_inline, after,
                    "helper function 'leftover' left after inlining", 43);
    expect_rejected("loop without body", b_loop_without_body, after, "loop without a body", 44);
    expect_rejected("vector arity", b_vector_arity, after, "vector float4 built from 3 scalars", 45);
    expect_rejected("simd result type", b_simd_result_type, after, "'simd_shuffle_down' of float gives int", 46);
    expect_rejected("atomic result type", b_atomic_result_type, after,
                    "'atomic_fetch_add_explicit' on atomic_uint gives float", 47);

    /* no pass name: the message has no "(after ...)" */
    fresh();
    {
        base_kernel k = make_base();
        b_if_cond(&k);
        CHECK(!ir_verify(m, &ctx.diags, NULL), "accepted");
        CHECK(has_diag(EN_ERROR, "internal error: IR verifier: if condition of type int, not bool", 18),
              "got %s", all_diags());
    }
    /* the base kernel alone, and with a proper loop, is fine */
    fresh();
    {
        base_kernel k = make_base();
        ir_stmt *l = loop_new(2);
        l->body = blk();
        ir_var *i = local(k.f, l->body, "i", i32(), ci(0));
        ir_stmt *out = blk();
        add(out, jump(IR_S_BREAK, l));
        add(l->body, ir_if(m, bin(IR_OP_GT, ref(i), ci(3)), out, NULL, nowhere));
        l->latch = blk();
        add(l->latch, jump(IR_S_BREAK, l));
        add(k.body, l);
        CHECK(ir_verify(m, &ctx.diags, "uniformity"), "rejected:\n%s", all_diags());
    }
}

/* ======================================================================================= */
static void expect_inlined(const char *name, ir_func *k, const char *want) {
    bool ok = en_pass_inline(&ctx, m);
    CHECK(ok, "%s: inline failed:\n%s", name, all_diags());
    CHECK(m->funcs.count == ir_module_kernel_count(m), "%s: helpers left in the module", name);
    CHECK(ir_verify(m, &ctx.diags, "inline"), "%s: inlined module rejected:\n%s", name, all_diags());
    check_text(name, print_func(k, 0), want);
}

static void test_inline(void) {
    /* simple: float sq(float v) { return v * v; } */
    fresh();
    {
        ir_func *sq = ir_func_new(m, "sq", at(1, 1));
        sq->return_type = f32();
        ir_var *v = param(sq, "v", f32());
        add(sq->body, ret(bin(IR_OP_MUL, ref(v), ref(v))));
        base_kernel k = make_base();
        ir_var *r = local(k.f, k.body, "r", f32(), NULL);
        ir_expr *a = idx(ref(k.out), ref(k.gid));
        add(k.body, call(sq, r, &a, 1, 3));
        add(k.body, set(idx(ref(k.out), ref(k.gid)), ref(r)));
        CHECK(ir_verify(m, &ctx.diags, "check"), "before:\n%s", all_diags());
        expect_inlined("simple call", k.f,
                       "kernel void k(device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
                       "  float r\n"
                       "  {\n"
                       "    float v = out[gid]\n"
                       "    {\n"
                       "      r = v * v\n"
                       "    }\n"
                       "  }\n"
                       "  out[gid] = r\n"
                       "}\n");
    }

    /* nested, twice: float quad(float a) { float s = sq(a); float t = sq(s); return t; } */
    fresh();
    {
        ir_func *sq = ir_func_new(m, "sq", at(1, 1));
        sq->return_type = f32();
        ir_var *v = param(sq, "v", f32());
        add(sq->body, ret(bin(IR_OP_MUL, ref(v), ref(v))));
        ir_func *quad = ir_func_new(m, "quad", at(2, 1));
        quad->return_type = f32();
        ir_var *a = param(quad, "a", f32());
        ir_var *s = local(quad, quad->body, "s", f32(), NULL);
        ir_expr *arg = ref(a);
        add(quad->body, call(sq, s, &arg, 1, 3));
        ir_var *t = local(quad, quad->body, "t", f32(), NULL);
        arg = ref(s);
        add(quad->body, call(sq, t, &arg, 1, 4));
        add(quad->body, ret(ref(t)));
        base_kernel k = make_base();
        ir_var *r = local(k.f, k.body, "r", f32(), NULL);
        arg = cf(3);
        add(k.body, call(quad, r, &arg, 1, 5));
        add(k.body, set(idx(ref(k.out), ref(k.gid)), ref(r)));
        expect_inlined("nested calls", k.f,
                       "kernel void k(device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
                       "  float r\n"
                       "  {\n"
                       "    float a = 3.0f\n"
                       "    {\n"
                       "      float s\n"
                       "      {\n"
                       "        float v.5 = a\n"
                       "        {\n"
                       "          s = v.5 * v.5\n"
                       "        }\n"
                       "      }\n"
                       "      float t\n"
                       "      {\n"
                       "        float v.7 = s\n"
                       "        {\n"
                       "          t = v.7 * v.7\n"
                       "        }\n"
                       "      }\n"
                       "      r = t\n"
                       "    }\n"
                       "  }\n"
                       "  out[gid] = r\n"
                       "}\n");
    }

    /* return inside a loop: int find(device float* xs, int n) {
     *   for (int i = 0;; i++) { if (i >= n) break; if (xs[i] > 0) return i; } return -1; } */
    fresh();
    {
        ir_func *find = ir_func_new(m, "find", at(1, 1));
        find->return_type = i32();
        ir_var *xs = param(find, "xs", ptr(f32(), IR_SPACE_DEVICE));
        ir_var *n = param(find, "n", i32());
        ir_var *i = local(find, find->body, "i", i32(), ci(0));
        ir_stmt *l = loop_new(3);
        l->body = blk();
        ir_stmt *stop = blk();
        add(stop, jump(IR_S_BREAK, l));
        add(l->body, ir_if(m, bin(IR_OP_GE, ref(i), ref(n)), stop, NULL, nowhere));
        ir_stmt *found = blk();
        add(found, ret(ref(i)));
        add(l->body, ir_if(m, bin(IR_OP_GT, idx(ref(xs), ref(i)), cf(0)), found, NULL, nowhere));
        l->latch = set(ref(i), bin(IR_OP_ADD, ref(i), ci(1)));
        add(find->body, l);
        add(find->body, ret(ci(-1)));
        base_kernel k = make_base();
        ir_var *r = local(k.f, k.body, "r", i32(), NULL);
        ir_expr *args[2] = {ref(k.out), ci(8)};
        add(k.body, call(find, r, args, 2, 5));
        add(k.body, set(idx(ref(k.out), ref(k.gid)), ir_convert(m, f32(), ref(r), nowhere)));
        expect_inlined("return in a loop", k.f,
                       "kernel void k(device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
                       "  int r\n"
                       "  {\n"
                       "    device float* xs = out\n"
                       "    int n = 8\n"
                       "    loop L0 {\n"
                       "      int i = 0\n"
                       "      loop L1 {\n"
                       "        if (i >= n) {\n"
                       "          break L1\n"
                       "        }\n"
                       "        if (xs[i] > 0.0f) {\n"
                       "          {\n"
                       "            r = i\n"
                       "            break L0\n"
                       "          }\n"
                       "        }\n"
                       "      } latch {\n"
                       "        i = i + 1\n"
                       "      }\n"
                       "      {\n"
                       "        r = -1\n"
                       "        break L0\n"
                       "      }\n"
                       "    } latch {\n"
                       "      break L0\n"
                       "    }\n"
                       "  }\n"
                       "  out[gid] = convert<float>(r)\n"
                       "}\n");
    }

    /* a pointer (reference) parameter: void bump(thread int& c) { c = c + 1; } */
    fresh();
    {
        ir_func *bump = ir_func_new(m, "bump", at(1, 1));
        ir_var *c = param(bump, "c", ptr(i32(), IR_SPACE_THREAD));
        c->is_reference = true;
        add(bump->body, set(ir_deref(m, ref(c), nowhere),
                            bin(IR_OP_ADD, ir_deref(m, ref(c), nowhere), ci(1))));
        base_kernel k = make_base();
        ir_var *count = local(k.f, k.body, "count", i32(), ci(0));
        count->address_taken = true;
        ir_expr *addr = ir_expr_new(m, IR_E_ADDR, ptr(i32(), IR_SPACE_THREAD), nowhere, 1);
        addr->args[0] = ref(count);
        add(k.body, call(bump, NULL, &addr, 1, 3));
        add(k.body, call(bump, NULL, &addr, 1, 4)); /* the same argument tree twice is fine */
        add(k.body, set(idx(ref(k.out), ref(k.gid)), ir_convert(m, f32(), ref(count), nowhere)));
        expect_inlined("pointer parameter", k.f,
                       "kernel void k(device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
                       "  int count = 0\n"
                       "  {\n"
                       "    thread int* c.3 = (&count)\n"
                       "    {\n"
                       "      (*c.3) = (*c.3) + 1\n"
                       "    }\n"
                       "  }\n"
                       "  {\n"
                       "    thread int* c.4 = (&count)\n"
                       "    {\n"
                       "      (*c.4) = (*c.4) + 1\n"
                       "    }\n"
                       "  }\n"
                       "  out[gid] = convert<float>(count)\n"
                       "}\n");
    }

    /* recursion: direct */
    fresh();
    {
        ir_func *f = ir_func_new(m, "f", at(1, 1));
        add(f->body, call(f, NULL, NULL, 0, 2));
        base_kernel k = make_base();
        add(k.body, call(f, NULL, NULL, 0, 3));
        CHECK(!en_pass_inline(&ctx, m), "direct recursion accepted");
        CHECK(has_diag(EN_ERROR, "recursive function calls are not supported: 'f' calls itself", 2),
              "got:\n%s", all_diags());
        CHECK(ctx.diags.errors == 1, "%d errors", ctx.diags.errors);
    }
    /* recursion: mutual, f -> g -> f, reached from the kernel */
    fresh();
    {
        ir_func *f = ir_func_new(m, "f", at(1, 1));
        ir_func *g = ir_func_new(m, "g", at(4, 1));
        add(f->body, call(g, NULL, NULL, 0, 2));
        add(g->body, call(f, NULL, NULL, 0, 5));
        base_kernel k = make_base();
        add(k.body, call(f, NULL, NULL, 0, 8));
        CHECK(!en_pass_inline(&ctx, m), "mutual recursion accepted");
        CHECK(has_diag(EN_ERROR, "recursive function calls are not supported: 'f' calls itself via 'g'", 5),
              "got:\n%s", all_diags());
        CHECK(ctx.diags.errors == 1, "%d errors", ctx.diags.errors);
    }
    /* three-way cycle, found from the kernel's side */
    fresh();
    {
        base_kernel k = make_base();
        ir_func *a = ir_func_new(m, "a", at(1, 1));
        ir_func *b = ir_func_new(m, "b", at(2, 1));
        ir_func *c = ir_func_new(m, "c", at(3, 1));
        add(k.body, call(a, NULL, NULL, 0, 9));
        add(a->body, call(b, NULL, NULL, 0, 1));
        add(b->body, call(c, NULL, NULL, 0, 2));
        add(c->body, call(a, NULL, NULL, 0, 3));
        CHECK(!en_pass_inline(&ctx, m), "cycle accepted");
        CHECK(has_diag(EN_ERROR, "recursive function calls are not supported: 'a' calls itself via 'b', 'c'", 3),
              "got:\n%s", all_diags());
    }
}

/* ======================================================================================= */
/* kernel void u(device float* data [[buffer(0)]], constant uint* n [[buffer(1)]],
 *               uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],
 *               uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]],
 *               uint tg [[threadgroup_position_in_grid]]) */
typedef struct ukernel {
    ir_func *f;
    ir_var *data, *n, *lid, *gid, *sg, *lane, *tg;
    ir_stmt *body;
} ukernel;

static ukernel make_u(void) {
    ukernel k;
    k.f = kernel("u");
    k.data = buffer(k.f, "data", ptr(f32(), IR_SPACE_DEVICE), 0);
    k.n = buffer(k.f, "n", ptr(u32(), IR_SPACE_CONSTANT), 1);
    k.lid = attr(k.f, "lid", u32(), IR_ATTR_THREAD_INDEX_IN_THREADGROUP);
    k.gid = attr(k.f, "gid", u32(), IR_ATTR_THREAD_POSITION_IN_GRID);
    k.sg = attr(k.f, "sg", u32(), IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP);
    k.lane = attr(k.f, "lane", u32(), IR_ATTR_THREAD_INDEX_IN_SIMDGROUP);
    k.tg = attr(k.f, "tg", u32(), IR_ATTR_THREADGROUP_POSITION_IN_GRID);
    k.body = k.f->body;
    return k;
}

static ir_stmt *then_do(ir_stmt *s) {
    ir_stmt *b = blk();
    add(b, s);
    return b;
}

static const char *tg_warning(int line, int col) {
    static char text[256];
    snprintf(text, sizeof text,
             "threadgroup_barrier in control flow that depends on the thread position (condition at "
             "%d:%d); all threads of a threadgroup must reach it", line, col);
    return text;
}

/* runs the pass, expects `warnings` warnings and `errors` errors */
static void run_uniformity(const char *name, int warnings, int errors) {
    CHECK(ir_verify(m, &ctx.diags, "inline"), "%s: malformed test IR:\n%s", name, all_diags());
    bool ok = en_pass_uniformity(&ctx, m);
    char *got = all_diags();
    CHECK(ok == (errors == 0), "%s: returned %d", name, ok);
    CHECK(ctx.diags.warnings == warnings && ctx.diags.errors == errors,
          "%s: %d warnings and %d errors, expected %d and %d:\n%s", name, ctx.diags.warnings,
          ctx.diags.errors, warnings, errors, got);
    free(got);
}

static void test_uniformity(void) {
    /* if (lid < 32) barrier: may split, not provably: a warning naming the condition */
    fresh();
    {
        ukernel k = make_u();
        add(k.body, ir_if(m, binat(IR_OP_LT, ref(k.lid), cu(32), 3, 9), then_do(barrier_at(4)), NULL, at(3, 5)));
        run_uniformity("lid < 32", 1, 0);
        CHECK(has_diag(EN_WARNING, tg_warning(3, 9), 4), "got:\n%s", all_diags());
    }
    /* if (lid == 0) barrier: provably splits every threadgroup of two or more threads */
    fresh();
    {
        ukernel k = make_u();
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(k.lid), cu(0), 3, 9), then_do(barrier_at(4)), NULL, at(3, 5)));
        run_uniformity("lid == 0", 0, 1);
        CHECK(has_diag(EN_ERROR,
                       "threadgroup_barrier is reached by only some threads of a threadgroup: the "
                       "condition at 3:9 compares 'lid' (thread_index_in_threadgroup) with a uniform "
                       "value, which splits every threadgroup of more than one thread; all threads "
                       "of a threadgroup must reach it", 4),
              "got:\n%s", all_diags());
    }
    /* if (n[0] != gid) { ... barrier in the else arm }: also provable (gid is 1-D) */
    fresh();
    {
        ukernel k = make_u();
        ir_expr *cond = binat(IR_OP_NE, idx(ref(k.n), cu(0)), ref(k.gid), 3, 9);
        add(k.body, ir_if(m, cond, blk(), then_do(barrier_at(5)), at(3, 5)));
        run_uniformity("n[0] != gid", 0, 1);
    }
    /* lid == gid: both sides vary, so no proof: a warning */
    fresh();
    {
        ukernel k = make_u();
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(k.lid), ref(k.gid), 3, 9), then_do(barrier_at(4)), NULL, at(3, 5)));
        run_uniformity("lid == gid", 1, 0);
    }
    /* early return under a thread-dependent condition before the barrier: fine */
    fresh();
    {
        ukernel k = make_u();
        add(k.body, ir_if(m, bin(IR_OP_GE, ref(k.gid), idx(ref(k.n), cu(0))), then_do(ret(NULL)), NULL, at(3, 5)));
        add(k.body, barrier_at(4));
        run_uniformity("early return", 0, 0);
    }
    /* ... and after it, `if (lid == 0) barrier` is no longer provable: the survivors might
     * all pass the test */
    fresh();
    {
        ukernel k = make_u();
        add(k.body, ir_if(m, bin(IR_OP_GE, ref(k.lid), cu(1)), then_do(ret(NULL)), NULL, at(3, 5)));
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(k.lid), cu(0), 4, 9), then_do(barrier_at(5)), NULL, at(4, 5)));
        run_uniformity("return then lid == 0", 1, 0);
    }
    /* for (uint i = 0; i < n[0]; i++) { barrier } and under if (tg == 0): uniform, no diagnostic */
    fresh();
    {
        ukernel k = make_u();
        ir_var *i = local(k.f, k.body, "i", u32(), cu(0));
        ir_stmt *l = loop_new(4);
        l->body = blk();
        add(l->body, ir_if(m, bin(IR_OP_GE, ref(i), idx(ref(k.n), cu(0))), then_do(jump(IR_S_BREAK, l)), NULL, nowhere));
        add(l->body, barrier_at(5));
        l->latch = set(ref(i), bin(IR_OP_ADD, ref(i), cu(1)));
        add(k.body, l);
        add(k.body, ir_if(m, bin(IR_OP_EQ, ref(k.tg), cu(0)), then_do(barrier_at(7)), NULL, nowhere));
        ir_var *u = local(k.f, k.body, "u", f32(), idx(ref(k.data), cu(0)));
        add(k.body, ir_if(m, bin(IR_OP_GT, ref(u), cf(0)), then_do(barrier_at(9)), NULL, nowhere));
        run_uniformity("uniform loop", 0, 0);
        CHECK(i->uniform && u->uniform && k.tg->uniform && !k.lid->uniform,
              "uniform flags: i %d u %d tg %d lid %d", i->uniform, u->uniform, k.tg->uniform, k.lid->uniform);
    }
    /* a loop whose trip count depends on the thread: the barrier in it may split */
    fresh();
    {
        ukernel k = make_u();
        ir_var *i = local(k.f, k.body, "i", u32(), cu(0));
        ir_stmt *l = loop_new(4);
        l->body = blk();
        add(l->body, ir_if(m, binat(IR_OP_GE, ref(i), ref(k.lid), 5, 11), then_do(jump(IR_S_BREAK, l)), NULL, nowhere));
        add(l->body, barrier_at(6));
        l->latch = set(ref(i), bin(IR_OP_ADD, ref(i), cu(1)));
        add(k.body, l);
        /* after the loop, i holds the trip count: thread-dependent */
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(i), cu(4), 8, 9), then_do(barrier_at(9)), NULL, nowhere));
        run_uniformity("varying loop", 2, 0);
        CHECK(has_diag(EN_WARNING, tg_warning(5, 11), 6), "got:\n%s", all_diags());
        CHECK(has_diag(EN_WARNING, tg_warning(8, 9), 9), "got:\n%s", all_diags());
        CHECK(!i->uniform, "i marked uniform");
    }
    /* control dependence: int f = 0; if (lid < 4) f = 1; if (f == 1) barrier */
    fresh();
    {
        ukernel k = make_u();
        ir_var *f = local(k.f, k.body, "f", i32(), ci(0));
        add(k.body, ir_if(m, bin(IR_OP_LT, ref(k.lid), cu(4)), then_do(set(ref(f), ci(1))), NULL, nowhere));
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(f), ci(1), 6, 9), then_do(barrier_at(7)), NULL, nowhere));
        /* a later uniform overwrite makes it uniform again (flow-sensitive) */
        add(k.body, set(ref(f), ci(2)));
        add(k.body, ir_if(m, bin(IR_OP_EQ, ref(f), ci(2)), then_do(barrier_at(9)), NULL, nowhere));
        run_uniformity("control dependence", 1, 0);
        CHECK(has_diag(EN_WARNING, tg_warning(6, 9), 7), "got:\n%s", all_diags());
    }
    /* loads: through a thread-dependent address vary; atomics' results vary */
    fresh();
    {
        ukernel k = make_u();
        ir_var *v = local(k.f, k.body, "v", f32(), idx(ref(k.data), ref(k.lid)));
        add(k.body, ir_if(m, binat(IR_OP_GT, ref(v), cf(0), 3, 9), then_do(barrier_at(4)), NULL, nowhere));
        ir_var *counter = buffer(k.f, "counter", ptr(ir_type_atomic(m, u32()), IR_SPACE_DEVICE), 2);
        ir_var *old = local(k.f, k.body, "old", u32(), NULL);
        ir_expr *args[2] = {ref(counter), cu(1)};
        add(k.body, ir_intrinsic_stmt(m, IR_I_ATOMIC_FETCH_ADD, old, args, 2, nowhere));
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(old), cu(0), 6, 9), then_do(barrier_at(7)), NULL, nowhere));
        run_uniformity("loads and atomics", 2, 0);
        CHECK(!v->uniform && !old->uniform, "flags");
    }
    /* SIMD level: if (sg == 0) splits the threadgroup but not a SIMD group */
    fresh();
    {
        ukernel k = make_u();
        ir_expr *flags = cu(IR_MEM_NONE);
        ir_stmt *simd_barrier = ir_intrinsic_stmt(m, IR_I_BARRIER_SIMDGROUP, NULL, &flags, 1, at(4, 5));
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(k.sg), cu(0), 3, 9), then_do(simd_barrier), NULL, nowhere));
        add(k.body, ir_if(m, binat(IR_OP_EQ, ref(k.sg), cu(1), 5, 9), then_do(barrier_at(6)), NULL, nowhere));
        flags = cu(IR_MEM_NONE);
        ir_stmt *lane_barrier = ir_intrinsic_stmt(m, IR_I_BARRIER_SIMDGROUP, NULL, &flags, 1, at(8, 5));
        add(k.body, ir_if(m, binat(IR_OP_LT, ref(k.lane), cu(16), 7, 9), then_do(lane_barrier), NULL, nowhere));
        run_uniformity("simd level", 2, 0);
        CHECK(has_diag(EN_WARNING, tg_warning(5, 9), 6), "got:\n%s", all_diags());
        CHECK(has_diag(EN_WARNING,
                       "simdgroup_barrier in control flow that depends on the thread's lane (condition "
                       "at 7:9); all threads of a SIMD group must reach it", 8),
              "got:\n%s", all_diags());
    }
    /* SIMD results: a reduction is uniform per SIMD group only; a shuffle per lane */
    fresh();
    {
        ukernel k = make_u();
        ir_var *s = local(k.f, k.body, "s", f32(), NULL);
        ir_expr *a = cf(1);
        add(k.body, ir_intrinsic_stmt(m, IR_I_SIMD_SUM, s, &a, 1, nowhere));
        add(k.body, ir_if(m, binat(IR_OP_GT, ref(s), cf(3), 4, 9), then_do(barrier_at(5)), NULL, nowhere));
        run_uniformity("simd_sum", 1, 0);
        CHECK(!s->uniform, "simd_sum result marked uniform");
    }
    /* an inlined helper that returns early under a thread-dependent condition, then syncs:
     *   void stage(uint lid) { if (lid < 5) return; threadgroup_barrier(); } */
    fresh();
    {
        ir_func *stage = ir_func_new(m, "stage", at(1, 1));
        ir_var *p = param(stage, "p", u32());
        add(stage->body, ir_if(m, binat(IR_OP_LT, ref(p), cu(5), 2, 7), then_do(ret(NULL)), NULL, nowhere));
        add(stage->body, barrier_at(3));
        ukernel k = make_u();
        ir_expr *arg = ref(k.lid);
        add(k.body, call(stage, NULL, &arg, 1, 9));
        CHECK(en_pass_inline(&ctx, m), "inline:\n%s", all_diags());
        run_uniformity("return from an inlined helper", 1, 0);
        CHECK(has_diag(EN_WARNING, tg_warning(2, 7), 3), "got:\n%s", all_diags());
    }
    /* thread-space memory through a pointer: float a[2]; thread float* p = &a[0];
     * *p = lid; if (a[0] > 1) barrier */
    fresh();
    {
        ukernel k = make_u();
        ir_var *arr = local(k.f, k.body, "arr", ir_type_array(m, f32(), 2), NULL);
        ir_expr *addr = ir_expr_new(m, IR_E_ADDR, ptr(f32(), IR_SPACE_THREAD), nowhere, 1);
        addr->args[0] = ir_index(m, f32(), ref(arr), cu(0), nowhere);
        ir_var *p = local(k.f, k.body, "p", ptr(f32(), IR_SPACE_THREAD), addr);
        add(k.body, set(ir_deref(m, ref(p), nowhere), ir_convert(m, f32(), ref(k.lid), nowhere)));
        add(k.body, ir_if(m, binat(IR_OP_GT, ir_index(m, f32(), ref(arr), cu(0), nowhere), cf(1), 6, 9),
                          then_do(barrier_at(7)), NULL, nowhere));
        run_uniformity("through a thread pointer", 1, 0);
        /* a pointer to a thread's own array differs per thread, like the array */
        CHECK(!p->uniform && !arr->uniform, "flags p %d arr %d", p->uniform, arr->uniform);
    }
}

int main(int argc, char **argv) {
    struct {
        const char *name;
        void (*run)(void);
    } groups[] = {{"print", test_print}, {"verify", test_verify}, {"inline", test_inline},
                  {"uniformity", test_uniformity}};
    for (size_t g = 0; g < EN_COUNT(groups); g++) {
        bool wanted = argc < 2;
        for (int i = 1; i < argc; i++) wanted |= strcmp(argv[i], groups[g].name) == 0;
        if (wanted) groups[g].run();
    }
    if (ctx_live) en_ctx_free(&ctx);
    printf("ir_test: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
