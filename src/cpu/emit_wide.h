/* emit_wide.h — what the files of wide mode share (emit_wide.c, the emitter; emit_wide_lanes.c,
 * which per-thread statements may share a loop over the threads). Internal to src/cpu.
 *
 * `wide` is the state of one kernel's wide-mode emission (cpu_wide_body); a `wset` the
 * threads one statement runs for. The helpers below are emit_wide.c's views of the IR that
 * the lanes analysis needs too: what is the same in every thread, structural equality of
 * expressions, which variables an expression reads, a counted loop's range. */
#ifndef ENIGMA_CPU_EMIT_WIDE_H
#define ENIGMA_CPU_EMIT_WIDE_H

#include "emit.h"

typedef struct wset { /* the threads a statement runs for: l in [lo, hi) with mask[l] */
    const char *lo, *hi, *mask; /* lo NULL: the whole group, by rows and columns */
} wset;

typedef EN_VEC(const ir_var *) var_list;

typedef struct wide_split { /* a lock-step loop's step in runs of D threads (split_loop) */
    int d;                    /* D, or 0 */
    const char *base;         /* the loop's base _ibN (its index is _ibN + l) */
    EN_VEC(memo_entry) forms; /* each `i / D` and `i % D` and its C form in _q and _s */
} wide_split;

typedef struct wide_step { /* the innermost uniform loop's counter, stepped by a constant */
    const ir_var *var;        /* or NULL */
    const char *ahead;        /* C: its value two steps on (row_prefetches) */
} wide_step;

typedef struct wide {
    emitter *em;
    bool failed;
    bool needs_one_d;  /* a thread range is used (in it _x is l): 1-D groups only */
    en_buf *fields;
    int divergent;     /* >0 inside per-thread control flow (lock-step loops) */
    bool sg_region;    /* inside sg_region: a test the same in each SIMD group counts as uniform */
    const char *sg_lo; /* there, the SIMD group's threads are [sg_lo, _sh) */
    const ir_stmt *divergent_at; /* the innermost such statement (divergent_if, lockstep_loop) */
    int uniform_loops; /* >0 inside a loop the same in every thread */
    wide_step step;    /* the innermost of them, where stepped_counter finds its counter */
    int prefetch_sites;
    bool exact;        /* emitting a loop's rarely taken exact copy: no unrolling */
    bool has_atomics;  /* the kernel (in thread_loop: the loop's statements) has atomics:
                        * iterations may depend on each other (no_dependence) */
    int unrolled;      /* >0 inside the copies of an unrolled loop */
    EN_VEC(const ir_stmt *) batch;
    EN_VEC(const ir_var *) hoisted; /* constant scalars read once (constant_scalar) */
    en_buf hoisted_decls;
    int batch_count_was; /* flush_batch: the statements being emitted */
    wset batch_set;
    EN_VEC(const ir_stmt *) matrix_batch; /* simdgroup_matrix statements (flush_matrices) */
    EN_VEC(const ir_var *) matrices;      /* simdgroup_matrix variables with storage so far */
    bool per_sg;                          /* inside a loop over the SIMD groups (matrix_loop) */
    var_list stepped;                     /* collect_stmt_forms: uniform variables a loop inside assigns */
    uint32_t lane_arg_size[4];            /* simd_function: bytes a thread of each argument slot */
    const ir_expr *assumed;               /* unswitch: a uniform test taken out of the loop over threads, */
    bool assumed_true;                    /* and its value in this copy of the loop */
    const char *stride_key;               /* a lock-step loop's grid-stride index, while all threads are in */
    const ir_var *step_index;             /* blocked_steps: the index thread_body's copies step, */
    const char *const *step_forms;        /* its C form in each copy, */
    int step_copies;                      /* and how many (0: one pass, one step) */
    var_list rows_read;                   /* row pointers a lock-step loop has read (next_row_prefetch) */
    bool next_group_fetched;              /* next_group_prefetch has run (at the first barrier) */
    const char *staged;                   /* staged_stmt: the values' array, and which loop this is: */
    bool storing;                         /* the values' (false) or the stores' (true) */
    int rows;                             /* thread_body_rows: rows of threads interleaved, */
    var_list row_vars;                    /* the variables with a local per row, */
    const char **row_names;               /* and those locals, row_vars.count per row */
    wide_split split;                     /* split_lanes: a lock-step loop's i / D and i % D */
    bool in_split;                        /* emitting split_loop's body */
    EN_VEC(memo_entry) chk_flags;         /* checked_stmt: each load and the flags array of its threads */
    bool chk_guarded;                     /* inline_loads: a load reads only where its thread's flag is set */
    const char *chk_store_flags;          /* staged_assign's stores: only where these flags are set */
} wide;

/* ---- emit_wide.c ---- */
/* is e the same in every thread of the group (simd: of each SIMD group)? */
EN_INTERNAL bool wide_uniform_in(wide *w, const ir_expr *e, bool simd);
/* the same in every thread where it is emitted (in an sg_region: in the SIMD group) */
EN_INTERNAL bool wide_uniform(wide *w, const ir_expr *e);
/* are a and b the same expression (so, with their variables unchanged, the same value)? */
EN_INTERNAL bool wide_same_value(const ir_expr *a, const ir_expr *b);
/* does e read v? */
EN_INTERNAL bool wide_expr_reads(const ir_expr *e, const ir_var *v);
/* the exit test of a loop whose body starts with `if (c) break;`: c (*first 1), else NULL */
EN_INTERNAL const ir_expr *wide_loop_head(const ir_stmt *loop, int *first);
/* how many statements of s assign v (its declaration aside) */
EN_INTERNAL int wide_count_assigns(const ir_stmt *s, const ir_var *v);
/* a loop `for (v = from; v < to; v += step)` with constant bounds, v assigned by its latch
 * alone: v and the bounds, else NULL */
EN_INTERNAL const ir_var *wide_counted_loop(wide *w, const ir_stmt *s, long long *from, long long *to, long long *step);

/* ---- emit_wide_lanes.c ---- */
/* would s, after the `count` statements `before` (one loop over the threads already),
 * need the lanes of a SIMD group in lock step, so a loop of its own? */
EN_INTERNAL bool wide_needs_lock_step(wide *w, const ir_stmt *const *before, int count, const ir_stmt *s);
/* the one store of a statement that meets itself, when it can run as two loops over the
 * threads (the values, then the stores); else NULL */
EN_INTERNAL const ir_stmt *wide_stageable(wide *w, const ir_stmt *s);

#endif
