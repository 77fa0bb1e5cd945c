/* emit_region.c — the threadgroup level: regions, barriers, and where variables live.
 *
 * Needs: a kernel body after inlining; emit_kernel (emit.c) calls classify_vars, then
 * choose_interleaved (and classify_vars again when it chose loops), then tg_list.
 * Guarantees: the region analysis cuts every statement list before each statement that
 * contains a threadgroup_barrier (and around each loop chosen to run interleaved), and
 * classify_vars() gives each variable its storage: a value used in one region is a gang
 * array on that region's stack, one used across regions lives per thread in the context
 * block. tg_list() emits a body as regions, each a loop over the SIMD groups running
 * gang_stmt(), and statements with barriers, which run at threadgroup level narrowing
 * `_act[]`; emit_barrier() is the barrier choke point; loops chosen by choose_interleaved()
 * run their SIMD groups interleaved. */
#include "emit.h"

/* ---- which statements need threadgroup level ---------------------------------------- */
static bool is_threadgroup_barrier(const ir_stmt *s) {
    return s->kind == IR_S_INTRINSIC && s->intrinsic == IR_I_BARRIER_THREADGROUP;
}

bool cpu_has_barrier(const ir_stmt *s) { return ir_stmt_any(s, is_threadgroup_barrier); }

EN_INTERNAL void cpu_walk_expr_vars(emitter *em, const ir_expr *e, var_visit visit, int region) {
    if (!e) return;
    if (e->kind == IR_E_VAR && e->var) visit(em, e->var, region);
    for (int i = 0; i < e->arg_count; i++) cpu_walk_expr_vars(em, e->args[i], visit, region);
}

EN_INTERNAL void cpu_walk_stmt_vars(emitter *em, const ir_stmt *s, var_visit visit, int region) {
    if (!s) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) cpu_walk_stmt_vars(em, s->stmts[i], visit, region);
        break;
    case IR_S_DECL:
        visit(em, s->var, region);
        cpu_walk_expr_vars(em, s->value, visit, region);
        break;
    case IR_S_ASSIGN:
        cpu_walk_expr_vars(em, s->place, visit, region);
        cpu_walk_expr_vars(em, s->value, visit, region);
        break;
    case IR_S_IF:
        cpu_walk_expr_vars(em, s->cond, visit, region);
        cpu_walk_stmt_vars(em, s->then_s, visit, region);
        cpu_walk_stmt_vars(em, s->else_s, visit, region);
        break;
    case IR_S_LOOP:
        cpu_walk_stmt_vars(em, s->body, visit, region);
        cpu_walk_stmt_vars(em, s->latch, visit, region);
        break;
    case IR_S_RETURN: cpu_walk_expr_vars(em, s->value, visit, region); break;
    case IR_S_INTRINSIC:
    case IR_S_CALL:
        if (s->result) visit(em, s->result, region);
        for (int i = 0; i < s->arg_count; i++) cpu_walk_expr_vars(em, s->args[i], visit, region);
        break;
    default: break;
    }
}

static void note_use(emitter *em, const ir_var *v, int region) {
    var_info *vi = cpu_info_of(em, v);
    if (vi->region < 0) vi->region = region;
    else if (vi->region != region) vi->multi = true;
}

EN_INTERNAL stmt_list cpu_list_of(ir_stmt *s) {
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
EN_INTERNAL ir_stmt *cpu_list_at(stmt_list l, int i) { return l.items ? l.items[i] : l.single; }

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
    if (is_interleaved(em, cpu_list_at(list, start))) return start + 1;
    int i = start;
    while (i < list.count && !cpu_has_barrier(cpu_list_at(list, i)) && !is_interleaved(em, cpu_list_at(list, i))) i++;
    return i;
}

static void analyse_tg_list(emitter *em, stmt_list list);

static void analyse_tg_stmt(emitter *em, ir_stmt *s) {
    switch (s->kind) {
    case IR_S_BLOCK: analyse_tg_list(em, cpu_list_of(s)); break;
    case IR_S_IF: {
        int cond_region = em->region_next++;
        cpu_walk_expr_vars(em, s->cond, note_use, cond_region);
        analyse_tg_list(em, cpu_list_of(s->then_s));
        analyse_tg_list(em, cpu_list_of(s->else_s));
        break;
    }
    case IR_S_LOOP:
        analyse_tg_list(em, cpu_list_of(s->body));
        analyse_tg_list(em, cpu_list_of(s->latch));
        break;
    default: break; /* the barrier itself */
    }
}

static void analyse_tg_list(emitter *em, stmt_list list) {
    int i = 0;
    while (i < list.count) {
        if (cpu_has_barrier(cpu_list_at(list, i))) {
            analyse_tg_stmt(em, cpu_list_at(list, i++));
            continue;
        }
        int region = em->region_next++, end = region_end(em, list, i);
        for (; i < end; i++) cpu_walk_stmt_vars(em, cpu_list_at(list, i), note_use, region);
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
    em->region_used = used;
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
        if (vi->kind == VK_GANG) cpu_line(em, "%s %s[32] = {0};", cpu_ctype(em, v->type), vi->cname);
        else if (vi->kind == VK_SCALAR) cpu_line(em, "%s %s = {0}; /* uniform */", cpu_ctype(em, v->type), vi->cname);
        else if (vi->kind == VK_CONTEXT)
            cpu_line(em, "%s *%s = _ctx->%s + _sg * 32;", cpu_ctype(em, v->type), vi->cname, vi->cname);
        else if (vi->kind == VK_LANE_ATTR) {
            cpu_line(em, "%s %s[32];", cpu_ctype(em, v->type), vi->cname);
            cpu_lane_attr_loop(em, v, vi->cname);
        }
    }
}

/* the head of a region: its SIMD-group loop, the mask, and the per-lane storage it uses */
static void region_open(emitter *em, const char *note, bool *used) {
    int region = em->region_next++;
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) { /* region %d: %s */", region, note);
    cpu_line(em, "uint32_t _m = _act[_sg];");
    cpu_line(em, "if (!_m) continue;");
    region_vars(em, used);
    em->mask = "_m";
}

static bool *vars_used(emitter *em, stmt_list list, int start, int end) {
    bool *used = en_alloc(&em->arena, (size_t)em->var_count + 1);
    collect_used = used;
    for (int i = start; i < end; i++) cpu_walk_stmt_vars(em, cpu_list_at(list, i), collect_use, 0);
    return used;
}

static void emit_region(emitter *em, stmt_list list, int start, int end) {
    int count = end - start;
    ir_stmt **stmts = en_alloc(&em->arena, sizeof(ir_stmt *) * (size_t)count);
    for (int i = 0; i < count; i++) stmts[i] = cpu_list_at(list, start + i);
    bool *used = vars_used(em, list, start, end);
    int first = stmts[0]->loc.line, last = stmts[count - 1]->loc.line;
    region_open(em, first == last ? cpu_S(em, "line %d", first) : cpu_S(em, "lines %d-%d", first, last), used);
    cpu_gang_list(em, (stmt_list){stmts, count, NULL});
    cpu_line(em, "_act[_sg] = _m;");
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
static bool is_return(const ir_stmt *s) { return s->kind == IR_S_RETURN; }
static bool leaves_loop(const ir_stmt *s, const ir_stmt *loop) {
    return ir_stmt_jumps_to(s, loop) || ir_stmt_any(s, is_return);
}

/* a streaming loop (streaming_loop) whose every step ends with all of its lanes still in
 * it: a SIMD group that enters with a full mask keeps it, step after step */
static bool interleavable(emitter *em, const ir_stmt *s) {
    const ir_expr *limit, *step;
    if (em->checked || s->kind != IR_S_LOOP || !cpu_streaming_loop(em, s, &limit, &step)) return false;
    stmt_list body = cpu_list_of(s->body);
    for (int i = 1; i < body.count; i++) /* the first statement is the loop's own test */
        if (leaves_loop(cpu_list_at(body, i), s)) return false;
    return !leaves_loop(s->latch, s);
}

/* the loops to interleave: statements of barrier-free stretches, at any threadgroup level */
EN_INTERNAL void cpu_choose_interleaved(emitter *em, stmt_list list) {
    for (int i = 0; i < list.count; i++) {
        ir_stmt *s = cpu_list_at(list, i);
        if (!cpu_has_barrier(s)) {
            if (interleavable(em, s)) EN_PUSH(&em->arena, em->interleaved, s);
        } else if (s->kind == IR_S_BLOCK) {
            cpu_choose_interleaved(em, cpu_list_of(s));
        } else if (s->kind == IR_S_IF) {
            cpu_choose_interleaved(em, cpu_list_of(s->then_s));
            cpu_choose_interleaved(em, cpu_list_of(s->else_s));
        } else if (s->kind == IR_S_LOOP) {
            cpu_choose_interleaved(em, cpu_list_of(s->body));
            cpu_choose_interleaved(em, cpu_list_of(s->latch));
        }
    }
}

/* The interleaved phase, then the loop as an ordinary region, which finishes what the phase
 * left: the SIMD groups that did not qualify (a partial or narrowed mask, an index that is
 * not the lane's), and each qualifying one from its tail. Every SIMD group's state is its
 * own (the index and the values carried across steps live per thread: the loop is a region
 * of its own), so SIMD groups that stop at different steps hand over consistently. */
static void emit_interleaved_loop(emitter *em, stmt_list list, int at) {
    const ir_stmt *s = cpu_list_at(list, at);
    const ir_expr *limit = NULL, *step = NULL;
    const ir_var *index = cpu_streaming_loop(em, s, &limit, &step);
    if (!index || cpu_info_of(em, index)->kind != VK_CONTEXT) { /* then the ordinary region is all */
        emit_region(em, list, at, at + 1);
        return;
    }
    const char *iv = cpu_info_of(em, index)->cname, *T = cpu_scalar_ctype(index->type->kind);
    int id = cpu_fresh(em);
    bool *used = vars_used(em, list, at, at + 1);
    OPEN("if (_nsg > 1) { /* SIMD groups interleaved: %s */", cpu_source_note(em, s->loc));
    cpu_line(em, "/* a SIMD group whose lanes are all in the loop with %s = %s[0] + lane steps in turn with the others */",
         index->name, index->name);
    cpu_line(em, "uint32_t _go%d[32], _live%d = 0;", id, id);
    cpu_line(em, "%s _ibs%d[32]; /* each SIMD group's %s[0]: its lanes are not stored until it stops */", T, id, index->name);
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
    cpu_line(em, "const %s *_i = _ctx->%s + _sg * 32;", T, iv);
    cpu_line(em, "_go%d[_sg] = _act[_sg] == ENK_FULL && %s;", id, cpu_stream_entry_test(em, "_i", T));
    cpu_line(em, "_ibs%d[_sg] = _i[0];", id);
    cpu_line(em, "_live%d += _go%d[_sg];", id, id);
    CLOSE();
    OPEN("while (_live%d) {", id);
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
    cpu_line(em, "if (!_go%d[_sg]) continue;", id);
    region_vars(em, used);
    cpu_line(em, "uint32_t _m = ENK_FULL;");
    em->mask = "_m";
    cpu_line(em, "%s _ib%d = _ibs%d[_sg];", T, id, id);
    em->memos.count = 0;
    const char *n = cpu_ex(em, limit, -1);
    OPEN("if (!(%s)) { /* a lane at the end: the tail */", cpu_stream_in_range(em, index, cpu_S(em, "_ib%d", id), n));
    cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = (%s)(_ib%d + (%s)l); /* the general loop goes on from here */",
         iv, T, id, T);
    cpu_line(em, "_go%d[_sg] = 0;", id);
    cpu_line(em, "_live%d--;", id);
    cpu_line(em, "continue;");
    CLOSE();
    em->implicit_var = index;
    em->implicit_base = cpu_S(em, "_ib%d", id);
    stmt_list body = cpu_list_of(s->body);
    body.count--; /* without the test, which the tail check above answered for all 32 lanes */
    if (body.items) body.items++;
    em->memos.count = 0;
    em->interleaving = true;
    cpu_gang_list(em, body);
    em->interleaving = false;
    em->implicit_var = NULL;
    em->memos.count = 0;
    cpu_line(em, "_ibs%d[_sg] = (%s)(_ib%d + (%s)%s); /* the latch: %s += step in every lane */", id, T, id, T,
         cpu_ex(em, step, -1), index->name);
    CLOSE();
    CLOSE();
    CLOSE();
    emit_region(em, list, at, at + 1);
}

/* THE barrier choke point: on the cpu every earlier region has finished for every SIMD
 * group of this threadgroup before the next region starts, so a barrier is a boundary
 * between loops. Checked mode hooks divergence checks here. */
static void emit_barrier(emitter *em, const ir_stmt *s) {
    int flags = 0;
    if (s->arg_count > 0 && s->args[0]->kind == IR_E_CONST) flags = (int)s->args[0]->c.u;
    cpu_line(em, "/* threadgroup_barrier(%s%s%s%s) — %s */", flags & IR_MEM_DEVICE ? "mem_device " : "",
         flags & IR_MEM_THREADGROUP ? "mem_threadgroup " : "", flags & IR_MEM_TEXTURE ? "mem_texture " : "",
         flags ? "" : "mem_none", cpu_source_note(em, s->loc));
    if (em->checked)
        cpu_line(em, "_cg->api->barrier(_cg->state, %s, _act, _chk_ret, _nsg);",
             cpu_site_ref(em, s->loc, CPU_CHECK_BARRIER, 0, -1, NULL, "threadgroup_barrier"));
}

static void tg_stmt(emitter *em, ir_stmt *s) {
    if (em->failed) return;
    switch (s->kind) {
    case IR_S_BLOCK: cpu_tg_list(em, cpu_list_of(s)); break;
    case IR_S_INTRINSIC: emit_barrier(em, s); break;
    case IR_S_IF: {
        int id = cpu_fresh(em);
        OPEN("{ /* if at threadgroup level (it contains a barrier): %s */", cpu_source_note(em, s->loc));
        cpu_line(em, "uint32_t _c%d[32] = {0}, _then%d[32], _else%d[32];", id, id, id);
        bool *used = en_alloc(&em->arena, (size_t)em->var_count + 1);
        collect_used = used;
        cpu_walk_expr_vars(em, s->cond, collect_use, 0);
        region_open(em, "the condition, per thread", used);
        em->memos.count = 0;
        const char *c = cpu_ex(em, s->cond, -1);
        cpu_line(em, "for (int l = 0; l < 32; l++) _c%d[_sg] |= (uint32_t)(%s) << l;", id, c);
        cpu_line(em, "_c%d[_sg] &= _m;", id);
        CLOSE();
        cpu_line(em, "bool _any_then%d = false, _any_else%d = false;", id, id);
        OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
        cpu_line(em, "_then%d[_sg] = _act[_sg] & _c%d[_sg];", id, id);
        cpu_line(em, "_else%d[_sg] = _act[_sg] & ~_c%d[_sg];", id, id);
        cpu_line(em, "_any_then%d |= _then%d[_sg] != 0;", id, id);
        cpu_line(em, "_any_else%d |= _else%d[_sg] != 0;", id, id);
        CLOSE();
        OPEN("if (_any_then%d) {", id);
        cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _then%d[_sg];", id);
        cpu_tg_list(em, cpu_list_of(s->then_s));
        cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _then%d[_sg] = _act[_sg];", id);
        CLOSE();
        if (s->else_s) {
            OPEN("if (_any_else%d) {", id);
            cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _else%d[_sg];", id);
            cpu_tg_list(em, cpu_list_of(s->else_s));
            cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _else%d[_sg] = _act[_sg];", id);
            CLOSE();
        }
        cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _then%d[_sg] | _else%d[_sg];", id, id);
        CLOSE();
        break;
    }
    case IR_S_LOOP: {
        int id = cpu_fresh(em);
        OPEN("{ /* loop at threadgroup level (it contains a barrier): %s */", cpu_source_note(em, s->loc));
        cpu_line(em, "uint32_t _brk%d[32] = {0}, _cont%d[32];", id, id);
        EN_PUSH(&em->arena, em->loops, ((loop_entry){.loop = s, .tg_level = true, .id = id}));
        OPEN("for (;;) {");
        cpu_line(em, "uint32_t _any = 0;");
        cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _any |= _act[_sg];");
        cpu_line(em, "if (!_any) break; /* every thread has left the loop */");
        cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _cont%d[_sg] = 0;", id);
        cpu_tg_list(em, cpu_list_of(s->body));
        cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] |= _cont%d[_sg];", id);
        if (s->latch) cpu_tg_list(em, cpu_list_of(s->latch));
        CLOSE();
        em->loops.count--;
        cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _act[_sg] = _brk%d[_sg];", id);
        CLOSE();
        break;
    }
    default: cpu_fail(em, s->loc, "statement kind %d at threadgroup level", (int)s->kind);
    }
}

EN_INTERNAL void cpu_tg_list(emitter *em, stmt_list list) {
    int i = 0;
    while (i < list.count && !em->failed) {
        if (cpu_has_barrier(cpu_list_at(list, i))) {
            if (!cpu_outline_tg(em, list, i, i + 1)) tg_stmt(em, cpu_list_at(list, i));
            i++;
            continue;
        }
        int start = i;
        i = region_end(em, list, start);
        if (cpu_outline_tg(em, list, start, i)) continue;
        if (is_interleaved(em, cpu_list_at(list, start))) emit_interleaved_loop(em, list, start);
        else emit_region(em, list, start, i);
    }
}

/* ---- variable classification ------------------------------------------------------- */
EN_INTERNAL void cpu_classify_vars(emitter *em, const ir_func *f) {
    for (int i = 0; i < em->var_count; i++) em->vars[i] = (var_info){VK_UNUSED, -1, false, NULL};
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        var_info *vi = cpu_info_of(em, v);
        vi->cname = cpu_S(em, "%s_%d", cpu_ident(em, v->name), v->id);
        if (v->param_kind == IR_PARAM_ATTR)
            vi->kind = v->is_assigned ? VK_CONTEXT : cpu_attr_is_per_lane(v->attr) ? VK_LANE_ATTR : VK_UNIFORM;
        else vi->kind = v->is_assigned ? VK_CONTEXT : VK_UNIFORM;
    }
    for (int k = 0; k < f->threadgroup_vars.count; k++) {
        const ir_var *v = f->threadgroup_vars.items[k];
        var_info *vi = cpu_info_of(em, v);
        vi->kind = VK_THREADGROUP;
        vi->cname = cpu_S(em, "%s_%d", cpu_ident(em, v->name), v->id);
    }
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        var_info *vi = cpu_info_of(em, v);
        if (vi->kind != VK_UNUSED) continue;
        vi->cname = cpu_S(em, "%s_%d", cpu_ident(em, v->name), v->id);
        vi->kind = VK_GANG; /* refined after the region analysis */
    }
    em->region_next = 0;
    analyse_tg_list(em, cpu_list_of(f->body));
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        var_info *vi = cpu_info_of(em, v);
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
