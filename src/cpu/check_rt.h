/* check_rt.h — the checking runtime that checked generated code calls (checked mode).
 *
 * A checked kernel is the ordinary generated C with hook calls at its choke points. The
 * generated file cannot link against the library, so it reaches the runtime through a
 * table of function pointers: exec.c passes a cpu_check_group (the usual cpu_group with
 * the table and the dispatch's state behind it) and the kernel reads both from there.
 * check_prelude.c holds the same declarations as C text for the generated file; the two
 * must stay identical in layout.
 *
 * What the generated code must call (each hook is per SIMD group: 32 lanes and a mask):
 *   group_begin   once per threadgroup, first thing, with the kernel's object table
 *   access        every load, store and atomic of device, constant or threadgroup memory,
 *                 before it happens, with the 32 lane addresses (and, for a plain store, the
 *                 32 values about to be stored, site->size bytes apart, else NULL); it
 *                 returns the lanes that may touch memory (in bounds): the code stores only
 *                 those and loads zero for the others
 *   access_run    the same for a load or store whose lane l reads or writes first + l *
 *                 site->size (the generated code has tested that the lanes are consecutive)
 *   access_span   wide mode's access hook: one access by a span of the group's threads
 *                 (lo .. hi - 1, those a set of flags holds), a thread's address (and a
 *                 plain store's value) per thread; it sets a flag per thread, 1 where the
 *                 thread may touch memory, and the code loads zero or drops the store for
 *                 the others (the same checks as `access`, SIMD group by SIMD group)
 *   barrier       every threadgroup_barrier, with the threads that arrive and those that
 *                 have returned, per SIMD group
 *   simd_barrier  every simdgroup_barrier, likewise within the SIMD group
 *   lane          a SIMD shuffle or broadcast lane that reads an inactive or out-of-range
 *                 lane (the generated code finds them; one call per bad lane)
 *   div_zero      an active lane's integer division or remainder by zero
 *   fence         an atomic_thread_fence of device or system scope that is not relaxed,
 *                 with its IR_ORDER_* and IR_SCOPE_*
 *   index         an active lane's index into an array or vector of thread memory (a local
 *                 array, one in a local struct, a row of an array of arrays) outside
 *                 0..length-1, one call per bad lane; the generated code tests the index
 *                 itself (a thread's memory is its own: no object to look up) and leaves
 *                 the lane out of the access (a load gives zero, a store is dropped)
 *
 * Sites (one per hook call in the source, a static table in the generated file) carry the
 * source position and what is accessed; objects (one table per kernel) name what a
 * pointer may point into, so an overrun is judged against its own array or buffer. */
#ifndef ENIGMA_CPU_CHECK_RT_H
#define ENIGMA_CPU_CHECK_RT_H

#include "cpu.h"

/* what a site does */
enum {
    CPU_CHECK_LOAD = 1,
    CPU_CHECK_STORE = 2,
    CPU_CHECK_ATOMIC_LOAD = 3,
    CPU_CHECK_ATOMIC_STORE = 4,
    CPU_CHECK_ATOMIC_RMW = 5,   /* read-modify-write: reads and writes */
    CPU_CHECK_DIV = 6,
    CPU_CHECK_REM = 7,
    CPU_CHECK_SHUFFLE = 8,
    CPU_CHECK_BARRIER = 9,
    CPU_CHECK_SIMD_BARRIER = 10,
    CPU_CHECK_FENCE = 11,
};

/* what an object is */
enum {
    CPU_CHECK_OBJ_BUFFER = 1,     /* [[buffer(n)]]: device or constant */
    CPU_CHECK_OBJ_TG_DYNAMIC = 2, /* [[threadgroup(n)]] */
    CPU_CHECK_OBJ_TG_STATIC = 3,  /* a `threadgroup` variable */
    CPU_CHECK_OBJ_CONSTANT = 4,   /* a program-scope constant */
};

/* why a SIMD lane read is bad (lane hook) */
enum { CPU_CHECK_LANE_INACTIVE = 0, CPU_CHECK_LANE_OUT_OF_RANGE = 1 };

typedef struct cpu_check_site {
    int32_t file, line, col;
    uint16_t op;          /* CPU_CHECK_* */
    uint16_t space;       /* ir_space of the memory (accesses) */
    int32_t object;       /* index into the kernel's object table; -1: find it by address */
    uint32_t size;        /* bytes per lane (accesses) */
    const char *what;     /* the source's name for the thing: "input", "simd_shuffle" */
} cpu_check_site;

typedef struct cpu_check_object {
    uint16_t kind;        /* CPU_CHECK_OBJ_* */
    uint16_t is_const;    /* written through no pointer of the kernel: no race tracking */
    int32_t binding;      /* BUFFER, TG_DYNAMIC */
    uint64_t offset;      /* TG_STATIC: bytes into the threadgroup block */
    uint64_t size;        /* TG_STATIC, CONSTANT: bytes */
    const void *address;  /* CONSTANT: the constant itself */
    const char *name;
} cpu_check_object;

typedef struct cpu_check_api {
    void (*group_begin)(void *state, const cpu_group *g, const cpu_check_object *objects, int count);
    uint32_t (*access)(void *state, const cpu_check_site *site, uint32_t sg, uint32_t mask,
                       const uintptr_t *addr, const void *values);
    void (*barrier)(void *state, const cpu_check_site *site, const uint32_t *arrived,
                    const uint32_t *returned, uint32_t nsg);
    void (*simd_barrier)(void *state, const cpu_check_site *site, uint32_t sg, uint32_t mask,
                         uint32_t returned);
    void (*lane)(void *state, const cpu_check_site *site, uint32_t sg, int lane, int64_t source,
                 int why);
    void (*div_zero)(void *state, const cpu_check_site *site, uint32_t sg, int lane);
    void (*fence)(void *state, const cpu_check_site *site, uint32_t sg, uint32_t mask, int order, int scope);
    /* index: the value's 64 bits, read as signed when is_signed; site->what says what is indexed
     * ("array 'a'", "vector 'v'") */
    void (*index)(void *state, const cpu_check_site *site, uint32_t sg, int lane, uint64_t index, int is_signed,
                  uint64_t length);
    uint32_t (*access_run)(void *state, const cpu_check_site *site, uint32_t sg, uint32_t mask, uintptr_t first,
                           const void *values);
    /* set: a flag per thread (NULL: every thread of the span); addr, values (NULL unless a
     * plain store) and ok are indexed by thread; consecutive: the code has tested that
     * addr[t] is addr[lo] + (t - lo) * site->size for every t of the span; returns whether
     * every thread of the set is ok */
    int (*access_span)(void *state, const cpu_check_site *site, uint32_t lo, uint32_t hi, const uint8_t *set,
                       const uintptr_t *addr, int consecutive, const void *values, uint8_t *ok);
} cpu_check_api;

/* what a checked kernel receives: g first, so that it is also a plain cpu_group */
typedef struct cpu_check_group {
    cpu_group group;
    const cpu_check_api *api;
    void *state;
} cpu_check_group;

typedef struct cpu_check_dispatch cpu_check_dispatch;

/* the hooks, for exec.c to pass along */
EN_INTERNAL extern const cpu_check_api cpu_check_hooks;
/* the declarations above as C text, for checked generated files (check_prelude.c) */
extern const char cpu_check_prelude[];

/* one dispatch's checking state; reports go to launch->check (may be NULL: then nothing is
 * reported but the checks still guard memory). Threadgroups must run one at a time on a
 * state. A kernel whose emitted enk_kernel_N_check_apart is 1 may instead run on several
 * executors, each with its own state made with `apart`: its buffers are then bounds-checked
 * only (every access to a buffer it writes is atomic, and two atomics never race), and
 * the rest of the state is each threadgroup's own. NULL when out of memory. */
EN_INTERNAL cpu_check_dispatch *cpu_check_dispatch_new(const en_launch *launch, bool apart);
EN_INTERNAL void cpu_check_dispatch_free(cpu_check_dispatch *d);
/* after the dispatch: NULL when everything was checked, else what memory checked mode could
 * not get and what went unchecked for it (accesses are still bounds-checked) */
EN_INTERNAL const char *cpu_check_dispatch_shortfall(const cpu_check_dispatch *d);

#endif
