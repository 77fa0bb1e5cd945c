/* emit.h — what the files of the cpu backend's code generator share (internal to src/cpu).
 *
 * The generator turns kernel IR into C (cpu_emit_module, cpu.h) in four steps, one per file:
 *   emit.c         the module and kernel entry points, with what every step uses: the output
 *                  helpers, C names of IR types, where variables and attributes live
 *   emit_expr.c    constants, expressions, lane-affine forms and every access of memory
 *   emit_stmt.c    statements of one gang: assignments, if, loops, SIMD-group and quad-group
 *                  functions, atomics, simdgroup_matrix
 *   emit_region.c  the threadgroup level: region analysis, variable classification, regions,
 *                  interleaved streaming loops, barriers
 *   emit_outline.c large statements of a region as functions of their own (gcc's time)
 *   emit_wide.c    wide mode, tried first for kernels with barriers: the whole threadgroup
 *                  as one gang, uniform control flow once, per-thread statements as loops
 *                  over the threads
 *   emit_tile.c    register tiles, tried for barrier-free kernels whose loops are the same
 *                  in every thread: 4 rows x 16 threads per pass, per-thread values vectors
 * They share one `emitter` (the state of one module's emission) and the functions below;
 * nothing here is seen outside src/cpu.
 *
 * One rule for every call site: never pass two emitting calls (cpu_ex, whole, materialize,
 * anything that may hoist a load, number a temporary or define a type) as arguments of one
 * call. C leaves the order of a call's arguments open, so the generated text would depend
 * on the compiler that built enigma (gcc and clang differed on 59 of 642 kernels); take
 * them into locals first, in source order.
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
 * Large kernels (emit_outline.c): gcc's time on a function grows faster than its size, so
 * a kernel of many IR nodes has its large statements, runs of statements and threadgroup-
 * level statements emitted as functions of their own, with the same text inside: every name
 * the text uses is a parameter of that name. Small kernels keep one function.
 *
 * Choke points for checked mode: emit_access() emits every load and store of memory,
 * emit_barrier() every threadgroup barrier. Loads of memory are hoisted out of expressions
 * into temporaries so that masked-off lanes never touch memory; integer division goes
 * through helpers that never trap. A full mask with consecutive addresses takes a plain
 * vector loop.
 *
 * Fast paths (unchecked code, see "lane-affine addresses" in emit_expr.c): an address whose index is
 * base[l / 16] + step * (l % 16) by construction (position attributes, uniform values,
 * locals declared from them, per-lane index variables tested at run time) is accessed
 * under a full mask with one or two vector moves or broadcasts and no per-lane address
 * array; a grid-stride loop over such an index runs a per-gang fast loop (gang_loop); a
 * per-lane assignment under a full mask is a plain vector loop; a streaming loop that no
 * lane leaves early is a region of its own whose SIMD groups step in turn
 * (emit_interleaved_loop), so a threadgroup reads contiguous runs. Each keeps the general
 * code as its fallback.
 */
#ifndef ENIGMA_CPU_EMIT_H
#define ENIGMA_CPU_EMIT_H

#include "check_rt.h"
#include "cpu.h"

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
    VK_WIDE_ATTR,   /* wide mode: a per-thread position attribute, from l, _x and _y */
    VK_WIDE_EXPR,   /* wide mode: computed at each use, cname (or its initialiser) for thread l */
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
    int divergent; /* wide mode: its per-thread control depth where the loop began */
} loop_entry;

typedef struct memo_entry {
    const ir_expr *expr;
    const char *temp;
} memo_entry;

typedef struct note_entry { /* cpu_source_note's cache */
    int file, line;
    const char *text;
} note_entry;

enum { CPU_MAX_DEFERRED = 8 };

typedef struct emitter {
    const ir_module *m;
    en_arena arena;
    en_buf types;   /* type definitions, in dependency order */
    en_buf *out;    /* where statements go */
    en_buf *err;
    bool failed;
    EN_VEC(type_entry) type_names;
    EN_VEC(type_entry) access_names; /* cpu_access_ctype's typedefs */
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
    bool wide;         /* emitting wide mode (emit_wide.c): attributes of thread l */
    note_entry notes[64];
    EN_VEC(memo_entry) wide_index; /* wide mode: indices that cpu_ex reads in 64 bits */
    bool fast_paths;   /* lane-affine accesses and streaming loops */
    bool checked;      /* checked mode: an access the hook instruments keeps the general path */
    const ir_expr **inits; /* per local variable id: its declaration's value (lane_form) */
    const char *lane;  /* the lane index attr_value() uses: "(uint32_t)l", or a half's first */
    int lane_shape;    /* attr_value()'s threadgroup: 0 either (it tests _one_d), 1 1-D, 2 not */
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
    /* whether the checks of two threadgroups can share nothing (check_apart, emit.c): per
     * object, CPU_OBJECT_* bits; and whether an access finds its object only by address */
    uint8_t *object_use;
    int object_count;
    bool object_by_address;
    const char *store_values; /* the store being emitted: its 32 values, for the hook */
    EN_VEC(memo_entry) index_texts; /* each array or vector index cpu_lvalue wrote (IR_E_INDEX
                                     * -> its C text for lane l): the bounds check of thread
                                     * memory tests the very index the address uses */
    /* outlining (emit_outline.c): the functions made of this kernel's large statements */
    const bool *region_used;   /* the variables the current region declares (region_vars) */
    const ir_var **var_by_id;  /* the kernel's variables (parameters and locals) by id */
    bool position_table;       /* the kernel has `_lpos` (uses_position_table) */
    const ir_stmt *outlined;   /* the statement being emitted as a function's body */
    int outline_weight;        /* IR nodes from which a statement is outlined */
    en_buf parts;              /* the functions, each after those it calls */
    int part_count;
    /* deferred atomic adds (emit_defer.c): the parameters whose adds a worker sums */
    const ir_var *deferred[CPU_MAX_DEFERRED];
    int deferred_count;
} emitter;

typedef void (*var_visit)(emitter *em, const ir_var *v, int region);

/* The threadgroup-level walk, shared by analysis (visit != NULL) and emission: a list of
 * statements becomes runs of barrier-free statements (regions) and barrier statements. */
typedef struct stmt_list {
    ir_stmt *const *items; /* a block's statements, or NULL: then `single` */
    int count;
    ir_stmt *single;
} stmt_list;

/* Checked mode: the kind of access access_lanes() instruments. */
typedef enum access_kind {
    ACCESS_LOAD, ACCESS_STORE, ACCESS_ATOMIC, ACCESS_ATOMIC_LOAD, ACCESS_ATOMIC_STORE, ACCESS_UNIFORM_LOAD
} access_kind;

/* a line of output at the current indent; OPEN and CLOSE bracket an indented block, ELSE
 * closes one and opens the next */
#define OPEN(...) (cpu_line(em, __VA_ARGS__), em->indent++)
#define CLOSE() (em->indent--, cpu_line(em, "}"))
#define ELSE() (em->indent--, cpu_line(em, "} else {"), em->indent++)

/* ---- emit.c: output, C types, variables ---------------------------------------------- */
EN_INTERNAL const char *cpu_S(emitter *em, const char *fmt, ...) EN_PRINTF(2, 3);
EN_INTERNAL void cpu_fail(emitter *em, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
EN_INTERNAL void cpu_line(emitter *em, const char *fmt, ...) EN_PRINTF(2, 3);
EN_INTERNAL int cpu_fresh(emitter *em);
EN_INTERNAL const char *cpu_source_note(emitter *em, en_loc loc);
EN_INTERNAL const char *cpu_scalar_ctype(ir_type_kind k);
EN_INTERNAL const char *cpu_suffix_of(const ir_type *t);
EN_INTERNAL int cpu_int_bits(const ir_type *t);
EN_INTERNAL const char *cpu_wide_unsigned(const ir_type *t);
EN_INTERNAL const char *cpu_ident(emitter *em, const char *name);
EN_INTERNAL const char *cpu_ctype(emitter *em, const ir_type *t);
EN_INTERNAL const char *cpu_access_ctype(emitter *em, const ir_type *t);
EN_INTERNAL const char *cpu_compute_ctype(const ir_type *t);
EN_INTERNAL const char *cpu_from_storage(emitter *em, const ir_type *t, const char *x);
EN_INTERNAL const char *cpu_to_storage(emitter *em, const ir_type *t, const char *x);
EN_INTERNAL const char *cpu_rounded(emitter *em, const ir_type *t, const char *x);
EN_INTERNAL var_info *cpu_info_of(emitter *em, const ir_var *v);
EN_INTERNAL bool cpu_attr_is_per_lane(ir_attr a);
/* does s hold a threadgroup barrier (emit_region.c)? */
EN_INTERNAL bool cpu_has_barrier(const ir_stmt *s);
EN_INTERNAL const char *cpu_attr_value(emitter *em, ir_attr a, int d);
EN_INTERNAL const char *cpu_attr_init(emitter *em, const ir_var *v, const char *target);
/* the loop that gives target[l] the attribute v for each lane of a SIMD group; where the
 * value depends on the threadgroup's shape, one loop per shape (the 1-D one vectorises) */
EN_INTERNAL void cpu_lane_attr_loop(emitter *em, const ir_var *v, const char *target);

/* checked mode, per object of the kernel (emitter.object_use) */
enum { CPU_OBJECT_WRITTEN_BUFFER = 1, CPU_OBJECT_PLAIN_ACCESS = 2 };

/* ---- emit_expr.c: constants, expressions, memory accesses, checked-mode sites --------- */
/* the space of the memory a place reads or writes */
EN_INTERNAL ir_space cpu_place_space(const ir_expr *e);
EN_INTERNAL const char *cpu_const_init(emitter *em, const ir_expr *e);
EN_INTERNAL bool cpu_needs_access(const ir_expr *e);
EN_INTERNAL const char *cpu_var_lvalue(emitter *em, const ir_var *v);
EN_INTERNAL const char *cpu_lvalue(emitter *em, const ir_expr *e);
EN_INTERNAL const char *cpu_c_string(emitter *em, const char *text);
EN_INTERNAL const char *cpu_site_ref(emitter *em, en_loc loc, int op, int space, int object, const char *size,
                                   const char *what);
EN_INTERNAL const char *cpu_root_name(const ir_expr *e);
/* checked mode's site of an access to `place` (op CPU_CHECK_LOAD or _STORE), of an atomic
 * operation through pointer ptr (op CPU_CHECK_ATOMIC_*); NULL where thread memory needs none */
EN_INTERNAL const char *cpu_access_site(emitter *em, const ir_expr *place, int op, const char *ctype_name);
EN_INTERNAL const char *cpu_atomic_site(emitter *em, const ir_expr *ptr, const ir_type *t, int op);
EN_INTERNAL int cpu_pointer_object(emitter *em, const ir_expr *e);
EN_INTERNAL void cpu_pointer_sources(emitter *em, const ir_func *f);
EN_INTERNAL const char *cpu_access_lanes(emitter *em, const ir_expr *site, const ir_type *t, const char *addrs,
                                     access_kind kind);
EN_INTERNAL void cpu_emit_access(emitter *em, const ir_expr *place, const ir_type *t, const char *addr,
                             bool is_store, const char *temp);
EN_INTERNAL bool cpu_lane_invariant(emitter *em, const ir_expr *e);
EN_INTERNAL const char *cpu_materialize(emitter *em, const ir_expr *e);
/* emit_stmt.c: a SIMD-group or quad function over the lanes of mask M of one SIMD group */
EN_INTERNAL void cpu_group_op_lanes(emitter *em, const ir_stmt *s, int width, const char *M, const char *const *args,
                                    const char *res);
EN_INTERNAL const char *cpu_binary_expr(emitter *em, ir_op op, const ir_type *t, const char *a,
                                    const char *b);
EN_INTERNAL const char *cpu_ex(emitter *em, const ir_expr *e, int comp);

/* ---- emit_stmt.c: statements of one gang ---------------------------------------------- */
EN_INTERNAL void cpu_gang_list(emitter *em, stmt_list list);
EN_INTERNAL const ir_var *cpu_streaming_loop(emitter *em, const ir_stmt *s, const ir_expr **limit, const ir_expr **step);
EN_INTERNAL const char *cpu_stream_entry_test(emitter *em, const char *lanes, const char *T);
EN_INTERNAL const char *cpu_stream_in_range(emitter *em, const ir_var *index, const char *base, const char *n);
EN_INTERNAL void cpu_gang_stmt(emitter *em, const ir_stmt *s);

/* ---- emit_region.c: the threadgroup level --------------------------------------------- */
EN_INTERNAL void cpu_walk_expr_vars(emitter *em, const ir_expr *e, var_visit visit, int region);
EN_INTERNAL void cpu_walk_stmt_vars(emitter *em, const ir_stmt *s, var_visit visit, int region);
EN_INTERNAL stmt_list cpu_list_of(ir_stmt *s);
EN_INTERNAL ir_stmt *cpu_list_at(stmt_list l, int i);
EN_INTERNAL void cpu_choose_interleaved(emitter *em, stmt_list list);
EN_INTERNAL void cpu_tg_list(emitter *em, stmt_list list);
EN_INTERNAL void cpu_classify_vars(emitter *em, const ir_func *f);

/* ---- emit_outline.c: large statements as functions ------------------------------------ */
/* sets em->outline_weight for the kernel f: small kernels are never outlined */
EN_INTERNAL void cpu_outline_choose(emitter *em, const ir_func *f);
EN_INTERNAL bool cpu_outline_stmt(emitter *em, const ir_stmt *s);
/* outlines a run of list's statements from start if they are large together: its end, or start */
EN_INTERNAL int cpu_outline_run(emitter *em, stmt_list list, int start);
/* outlines a large region (list[start..end)) or statement with barriers (end = start + 1) */
EN_INTERNAL bool cpu_outline_tg(emitter *em, stmt_list list, int start, int end);

/* ---- emit_wide.c: wide mode --------------------------------------------------------------- */
EN_INTERNAL bool cpu_wide_body(emitter *em, const ir_func *f, en_buf *fields);

/* ---- emit_tile.c: register tiles ---------------------------------------------------------- */
EN_INTERNAL bool cpu_tile_body(emitter *em, const ir_func *f);


/* ---- emit_defer.c: relaxed integer atomic adds a worker sums before adding ------------- */
EN_INTERNAL void cpu_defer_choose(emitter *em, const ir_func *f);
/* `T _r = ...;` for atomic_fetch_add/sub statement s of element type t, value v, at `_p`:
 * into the worker's sum where cpu_defer_choose picked s's counter, else an atomic add */
EN_INTERNAL void cpu_atomic_add_line(emitter *em, const ir_stmt *s, const ir_type *t, const char *v);
/* the context fields of the sums, and the function that zeroes and adds them */
EN_INTERNAL int cpu_defer_fields(emitter *em, en_buf *out);
EN_INTERNAL void cpu_defer_function(emitter *em, int index, en_buf *out);

#endif
