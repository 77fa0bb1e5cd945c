/* internal.h — what the files of the cuda backend share: emit.c (IR to CUDA C), nvrtc.c
 * (CUDA C to cubin, cached), driver.c (the device: context, memory, modules, launches) and
 * device.c (the en_backend vtable that ties them together). */
#ifndef ENIGMA_CUDA_INTERNAL_H
#define ENIGMA_CUDA_INTERNAL_H

#include "../runtime/backend.h"
#include "api.h"

/* prelude.c (generated from prelude.cuh): the text every generated file starts with */
EN_INTERNAL extern const char en_cuda_prelude[];

/* ---- emit.c ---------------------------------------------------------------------------- */
/* The module as one CUDA C++ file: the prelude, its structs and constants, and one
 * extern "C" __global__ function per kernel. Kernel parameters, in order:
 *   const en_dispatch en_p        grid, dispatch group size, by_threads (prelude.cuh)
 *   then, in the MSL parameter order:
 *     [[buffer(n)]]        a device pointer (the binding's offset already added), or for
 *                          a small constant reference, a pointer and a value (below)
 *     [[threadgroup(n)]]   uint: its byte offset in the dynamic shared memory
 *   position attributes are computed inside the kernel and take no parameter. */
EN_INTERNAL enigma_status en_cuda_emit(const ir_module *m, en_buf *out, en_buf *err);
/* A `constant T &x [[buffer(n)]]` of a scalar or vector of at most EN_CUDA_BY_VALUE_MAX
 * bytes takes TWO kernel parameters: `const T *en_ref_x` and `const T en_val_x`. The launch
 * passes NULL and the value when it knows the bytes on the host (driver.c keeps a host copy
 * of small buffers that no kernel could have written), else the pointer (and zero). */
#define EN_CUDA_BY_VALUE_MAX 16u
EN_INTERNAL bool en_cuda_param_by_value(const ir_var *p);
/* Each kernel has two entry points with the same parameters: the MSL name (any dispatch),
 * and the name + EN_CUDA_FAST_SUFFIX for a dispatch of 1-D threadgroups (group_size y and
 * z of 1) where every by-value constant arrived by value: its en_locate is the short 1-D
 * form and it never looks at the constants' pointers. */
#define EN_CUDA_FAST_SUFFIX "__en_fast"
/* A kernel that wgmma.c plans as one warpgroup's GEMM has a third entry point where it is
 * built for sm_90a: the name + EN_CUDA_WARPGROUP_SUFFIX runs the warpgroup form alone, for a
 * dispatch whose threadgroups all have exactly 128 threads, 1-D (driver.c); the other two keep
 * the kernel as written (and their registers). */
#define EN_CUDA_WARPGROUP_SUFFIX "__en_wg"
/* ... and where wgmma_merge.c proves that four threadgroups (2x2 in the grid) may share their
 * staged operands, a fourth: the name + EN_CUDA_QUAD_SUFFIX runs such a quad as one block of
 * 512 threads (driver.c: for threadgroups of 128 threads, an even number along x and y). */
#define EN_CUDA_QUAD_SUFFIX "__en_wq"
/* the suffix of entry point v: 0 the general one, 1 EN_CUDA_FAST_SUFFIX, 2 the warpgroup's, 3
 * the quad's (emit.c writes them, driver.c looks them up) */
static inline const char *en_cuda_entry_suffix(int v) {
    return v == 1 ? EN_CUDA_FAST_SUFFIX : v == 2 ? EN_CUDA_WARPGROUP_SUFFIX : v == 3 ? EN_CUDA_QUAD_SUFFIX : "";
}
/* A module that calls thread_elements() numbers Metal's lanes so that Apple's layout of
 * simdgroup matrices is the tensor cores' (prelude.cuh: lane numbering); its blocks are then
 * launched in whole warps (the surplus threads leave at once, as at a dispatch's edge).
 * ENIGMA_CUDA_APPLE_LANES=1 numbers every module so (to test the SIMD functions that way). */
EN_INTERNAL bool en_cuda_apple_lanes(const ir_module *m);
/* the kernel's CUDA symbol name (its MSL name, which is an identifier) */
EN_INTERNAL const char *en_cuda_kernel_symbol(const ir_func *kernel);

/* Static `threadgroup` variables go to static __shared__ memory while they fit in the 48 KiB
 * a block gets without opting in; beyond that, they are carved from the dynamic shared
 * memory at offsets [0, static_bytes), ahead of the [[threadgroup(n)]] parameters. */
#define EN_CUDA_STATIC_SHARED_LIMIT (48u * 1024u)
/* a quad's block (EN_CUDA_QUAD_SUFFIX): its static and dynamic shared memory together, at
 * most half an H100's SM (228 KiB), so that two blocks fit */
#define EN_CUDA_QUAD_SHARED_LIMIT (112u * 1024u)
typedef struct en_cuda_shared_layout {
    uint64_t static_bytes;   /* all kernel-scope threadgroup variables, laid out in order */
    bool static_in_dynamic;  /* true when static_bytes > EN_CUDA_STATIC_SHARED_LIMIT */
} en_cuda_shared_layout;
EN_INTERNAL en_cuda_shared_layout en_cuda_shared_layout_of(const ir_func *kernel);

/* ---- matrix_pairs.c --------------------------------------------------------------------- */
/* A loop nest of simdgroup loads and multiplies, unrolled at emit time so that multiplies
 * sharing a B operand run two to a tensor-core instruction, and two such pairs on consecutive
 * K steps of the same accumulators four to one (m16n8k16) (matrix_pairs.c says which nests
 * qualify). */
#define EN_MAD_MAX_VARS 8
#define EN_MAD_MAX_DECLS 8
typedef enum en_mad_kind {
    EN_MAD_MULTIPLY,          /* simdgroup_multiply(_accumulate) */
    EN_MAD_LOAD,              /* simdgroup_load into a place */
    EN_MAD_DECL,              /* a new copy of a matrix variable declared inside the nest */
} en_mad_kind;
typedef struct en_mad {
    en_mad_kind kind;
    const ir_stmt *op;        /* the intrinsic; for EN_MAD_DECL the declaration */
    const ir_expr *dest;      /* the place its result is copied to; NULL: op->result itself */
    int64_t *values;          /* the nest's loop variables here (en_mad_plan.vars order) */
    int *copies;              /* which copy of each variable declared in the nest (en_mad_plan.decls) */
    const char *reads[3];     /* a, b, c named with constant indices; NULL if they cannot be */
    const char *writes;       /* the destination, likewise */
    int partner;              /* the multiply done by this one's instruction too (rows 8-15), or -1 */
    int k_first;              /* the multiply, with its partner, whose K step this one's
                               * instruction does first (m16n8k16), or -1 */
    bool fused;               /* done by another multiply's instruction */
} en_mad;
typedef struct en_mad_plan {
    en_mad *mads;             /* in program order */
    int count;
    const ir_var *vars[EN_MAD_MAX_VARS];
    int var_count;
    const ir_var *decls[EN_MAD_MAX_DECLS]; /* matrix variables declared inside the nest */
    bool b_layout[EN_MAD_MAX_DECLS];       /* ... held as mma.sync's B fragment (prelude: en_matrix_b) */
    int decl_count;
} en_mad_plan;
/* the plan for the nest whose outer loop is stmts[at] (its variable's declaration) and
 * stmts[at + 1] (the loop), or for the straight-line multiplies from stmts[at]: the number
 * of statements it replaces, 0 when there is none or nothing in it pairs */
EN_INTERNAL int en_cuda_mad_plan(ir_stmt *const *stmts, int count, int at, en_arena *arena, en_mad_plan *plan);
/* the loop nest from stmts[at] unrolled as en_cuda_mad_plan does, with nothing paired (every
 * operation on its own, in program order): the statements it covers, 0 when it does not
 * qualify (wgmma.c reads it) */
EN_INTERNAL int en_cuda_mad_nest(ir_stmt *const *stmts, int count, int at, en_arena *arena, en_mad_plan *plan);

/* ---- wgmma.c ------------------------------------------------------------------------------- */
/* A threadgroup GEMM that one warpgroup's wgmma.mma_async.m64n64k16 does (wgmma.c says when). */
#define EN_WG_MAX_TERMS 8
#define EN_WG_ACCUMULATORS 16     /* 8x8 accumulators a SIMD group holds: 64x64 / 4 / 64 */
#define EN_WG_SCRATCH_BYTES 1024  /* shared memory the accumulators move through: 4 8x8 blocks */
#define EN_WG_TILE_BYTES (64 * 72 * 4) /* a quad's one-round move: a threadgroup's 64x64 floats, rows of 72 (prelude en_wg_quad_tile) */
typedef struct en_wg_pointer {
    const ir_var *array;          /* &array[buffer][terms[last]] + terms[0] + ...: a staging array */
    const ir_expr *buffer;        /* which of its buffers (an array of them), or NULL */
    int64_t elements;             /* in one buffer */
    const ir_var *via;            /* the pointer variable set to it, or NULL */
    const ir_expr *terms[EN_WG_MAX_TERMS]; /* element offsets, added */
    int term_count;
    const ir_stmt *store;         /* the chunk store through it */
} en_wg_pointer;
typedef struct en_wg_staging {
    const ir_var *array;
    const ir_expr *buffer;        /* the buffer the nest reads (arrays of buffers), or NULL */
    int row;                      /* elements per row, as the loads read it */
} en_wg_staging;
/* a next-slice load and the chunk store it feeds, done as one asynchronous copy at the load
 * (wgmma_copy.c) */
typedef struct en_wg_copy {
    const ir_stmt *load;          /* reg[load_index] = *(device V *)p */
    const en_wg_pointer *to;      /* the store `... = reg[store_index]`, left out */
    const ir_var *load_index, *store_index; /* the two loops' indices, equal slot by slot */
    const ir_stmt *store_body;    /* the store's loop body: its declarations before store_at */
    int store_at;                 /* ... give the place's variables at the load */
} en_wg_copy;
typedef struct en_wg_plan {
    const ir_stmt *k_decl, *k_loop; /* statements of the kernel's body: the K loop */
    const ir_stmt *nest_decl;     /* the first of the nest's two statements in the K loop body */
    en_mad_plan nest;             /* ... unrolled, nothing paired */
    en_wg_staging a, b;           /* A: rows M, K contiguous (K-major); B: rows K, N contiguous (MN-major) */
    int k_steps;                  /* k16 steps of one pass of the nest */
    bool bf16;                    /* operands bfloat (else half) */
    bool copy_overlaps;           /* a chunk store after the nest, into the other buffer, with no
                                   * barrier between: the next slice's copy runs beside the MMAs */
    const ir_var *acc;            /* the accumulators' variable */
    const en_mad *acc_mads[EN_WG_ACCUMULATORS]; /* a multiply onto each accumulator (its place) */
    uint8_t block[4][EN_WG_ACCUMULATORS];       /* SIMD group s's accumulator k: block row * 8 + column */
    bool packed;                  /* $ENIGMA_CUDA_WGMMA is "packed": staging cores back to back
                                   * (emit.c wg_core_stride), for A/B timing of the spread */
    bool cores;                   /* $ENIGMA_CUDA_WGMMA is "spread" or "packed": the staging in
                                   * 8x8 core matrices, not swizzled (emit.c wg_swizzled) */
    const en_wg_pointer *stores;  /* every chunk store into the staging arrays */
    int store_count;
    const en_wg_copy *copies;     /* loads and stores done as cp.async (wgmma_copy.c) */
    int copy_count;
    bool pipe;                    /* the copy-then-multiply form pipelined (wgmma_pipe.c) */
    int pipe_from, pipe_to;       /* ... the K loop body's copy statements */
    bool copy_steady;             /* ... whose chunks keep their places and their sources'
                                     alignment from step to step (wgmma_pipe.c) */
    const ir_stmt *pipe_barrier;  /* ... and the barrier after them, left out */
    const ir_var *k_var;          /* ... the K counter */
    const ir_expr *k_step;        /* ... its step */
    const ir_expr *k_test;        /* ... and the loop's condition */
    bool merge;                   /* a 2x2 quad of threadgroups may run as one block (wgmma_merge.c) */
    int a_shared, b_shared;       /* ... sharing A's and B's staging along (EN_WG_SHARED_*) */
} en_wg_plan;
/* the threadgroups of a quad whose staged bytes of an array are the same: those of a row of
 * the quad (x differs), of a column (y differs), or all four */
enum { EN_WG_SHARED_NONE = 0, EN_WG_SHARED_X = 1, EN_WG_SHARED_Y = 2, EN_WG_SHARED_XY = 3 };
/* false when $ENIGMA_CUDA_WGMMA is 0: no plans, and sm_90 builds for sm_90 (nvrtc.c) */
EN_INTERNAL bool en_cuda_wgmma_enabled(void);
/* the plan for kernel f (false: none; also when $ENIGMA_CUDA_WGMMA is 0) */
EN_INTERNAL bool en_cuda_wgmma_plan(const ir_func *f, en_arena *arena, en_wg_plan *plan);
/* the chunk store s of the plan, or NULL */
EN_INTERNAL const en_wg_pointer *en_cuda_wgmma_store(const en_wg_plan *plan, const ir_stmt *s);

/* ---- wgmma_copy.c ----------------------------------------------------------------------- */
/* false when $ENIGMA_CUDA_CPASYNC is 0: no asynchronous copies (A/B timing) */
EN_INTERNAL bool en_cuda_wgmma_copies_enabled(void);
/* fills plan->copies: the pairs of the pipelined form's copy that can be cp.async */
EN_INTERNAL void en_cuda_wgmma_copies(const ir_func *f, en_arena *arena, en_wg_plan *plan);
/* the declaration of v in s (a statement nested anywhere), or NULL (wgmma.c) */
EN_INTERNAL const ir_stmt *en_cuda_wgmma_decl_of(const ir_stmt *s, const ir_var *v);
/* how often v is named in s (wgmma.c) */
EN_INTERNAL int en_cuda_wgmma_uses(const ir_stmt *s, const ir_var *v);
/* s is a threadgroup_barrier (wgmma_copy.c) */
EN_INTERNAL bool en_cuda_is_threadgroup_barrier(const ir_stmt *s);
/* $ENIGMA_CUDA_STEADY_COPY, for timing: 0 every chunk tested (no steady copy), 1 one untested
 * loop, else (the default) in a quad a loop per copier role (emit.c wg_copy_roles) */
enum { EN_STEADY_COPY_OFF, EN_STEADY_COPY_ONE_LOOP, EN_STEADY_COPY_ROLES };
EN_INTERNAL int en_cuda_steady_copy_setting(void);
/* sets plan->pipe and what goes with it (wgmma_pipe.c) */
EN_INTERNAL void en_cuda_wgmma_pipeline(en_wg_plan *plan);
/* the device address the chunk store copies (`*(threadgroup V *)q = *(device V *)p`: p), or NULL */
EN_INTERNAL const ir_expr *en_cuda_wgmma_copied_from(const ir_stmt *store);
/* the copy whose load s is, or NULL; whether s is a copy's store (left out) */
EN_INTERNAL const en_wg_copy *en_cuda_wgmma_copy_load(const en_wg_plan *plan, const ir_stmt *s);
EN_INTERNAL bool en_cuda_wgmma_copy_store(const en_wg_plan *plan, const ir_stmt *s);

/* ---- wgmma_merge.c ---------------------------------------------------------------------- */
/* false when $ENIGMA_CUDA_WGMMA_MERGE is 0: one threadgroup a block (A/B timing) */
EN_INTERNAL bool en_cuda_wgmma_merge_enabled(void);
/* sets plan->merge, a_shared and b_shared (wgmma_merge.c says when) */
EN_INTERNAL void en_cuda_wgmma_merge(const ir_func *f, en_arena *arena, en_wg_plan *plan);
/* a quad's staging buffers: EN_WG_QUAD_STAGES, or $ENIGMA_CUDA_QUAD_STAGES */
EN_INTERNAL int en_cuda_quad_stages(void);
/* where a staging array's copies start in the quad's dynamic shared memory, and its size */
EN_INTERNAL uint32_t en_cuda_quad_offset(const en_wg_plan *plan, const ir_var *array);
EN_INTERNAL uint32_t en_cuda_quad_shared_bytes(const en_wg_plan *plan);

/* ---- align.c ---------------------------------------------------------------------------- */
/* What a kernel guarantees about alignment: the largest power of two (at most 16) that
 * every value of an integer expression, or every address a pointer holds, is a multiple of.
 * [[threadgroup(n)]] memory starts on 16 bytes; device pointers count as 1 (align.c). */
typedef struct en_align {
    uint32_t *factor;         /* by local variable id */
    int var_count;
    bool threadgroup_vars_16; /* kernel-scope threadgroup variables start on 16 bytes */
} en_align;
EN_INTERNAL void en_cuda_align_init(en_align *al, const ir_func *kernel, bool threadgroup_vars_16, en_arena *arena);
EN_INTERNAL uint32_t en_cuda_align_of_int(const en_align *al, const ir_expr *e);
EN_INTERNAL uint32_t en_cuda_align_of_ptr(const en_align *al, const ir_expr *e);

/* ---- nvrtc.c --------------------------------------------------------------------------- */
typedef struct en_cubin {
    void *data;            /* malloc'ed */
    size_t size;
    bool from_cache;
    double compile_ms;     /* NVRTC's time (0 on a cache hit) */
    double load_ms;        /* reading the cache entry (0 on a miss) */
    char arch[16];         /* "sm_90" */
} en_cubin;

/* The target: the device's compute capability when there is a device; without one,
 * $ENIGMA_CUDA_ARCH ("sm_90", "90" or "9.0"), else sm_90. */
EN_INTERNAL void en_cuda_offline_arch(int *major, int *minor);
/* the module's CUDA C (en_cuda_emit) to a cubin for sm_<major><minor>, through the on-disk
 * cache unless no_cache (a batch's kernels alone find it there too: nvrtc.c). A compile
 * failure is ENIGMA_ERROR_INTERNAL with NVRTC's log; a missing NVRTC is
 * ENIGMA_ERROR_UNAVAILABLE. */
EN_INTERNAL enigma_status en_nvrtc_compile(const ir_module *m, int major, int minor,
                                           const char *extra_options, bool no_cache,
                                           en_cubin *out, en_buf *err);
EN_INTERNAL void en_cubin_free(en_cubin *c);

/* ---- driver.c -------------------------------------------------------------------------- */
typedef struct en_cuda_device en_cuda_device;
typedef struct en_cuda_program en_cuda_program;

EN_INTERNAL enigma_status en_cuda_device_open(en_device *dev, en_buf *err);
EN_INTERNAL void en_cuda_device_close(en_device *dev);
EN_INTERNAL enigma_status en_cuda_buffer_alloc(en_device *dev, size_t bytes, void **handle, en_buf *err);
EN_INTERNAL void en_cuda_buffer_free(en_device *dev, void *handle);
EN_INTERNAL bool en_cuda_cancel(en_device *dev, const en_launch *launch);
EN_INTERNAL enigma_status en_cuda_buffer_borrow(en_device *dev, void *memory, size_t bytes,
                                                void **handle, en_buf *err);
EN_INTERNAL enigma_status en_cuda_buffer_write(en_device *dev, void *handle, size_t offset,
                                               const void *src, size_t bytes, en_buf *err);
EN_INTERNAL enigma_status en_cuda_buffer_read(en_device *dev, void *handle, size_t offset,
                                              void *dst, size_t bytes, en_buf *err);
EN_INTERNAL enigma_status en_cuda_build(en_device *dev, const ir_module *m,
                                        const en_build_options *o, en_program **out, en_buf *err);
EN_INTERNAL void en_cuda_program_free(en_device *dev, en_program *p);
EN_INTERNAL enigma_status en_cuda_kernel_limits(en_device *dev, en_program *p, int kernel_index,
                                                en_kernel_limits *out, en_buf *err);
EN_INTERNAL enigma_status en_cuda_dispatch(en_device *dev, en_program *p, en_launch *l, en_buf *err);
EN_INTERNAL enigma_status en_cuda_wait(en_device *dev, en_launch *l, en_buf *err);

#endif
