/* cpu.h — the cpu backend's internal interface: emit*.c (IR -> C; emit.h), jit.c (C -> loaded .so
 * through the cache), exec.c (worker pool, dispatch), device.c (the en_backend vtable). */
#ifndef ENIGMA_CPU_H
#define ENIGMA_CPU_H

#include "../runtime/backend.h"

#include <pthread.h>

/* One threadgroup as the generated code receives it. Must match enk_group in prelude.txt. */
typedef struct cpu_group {
    void *const *buffers;
    void *const *tg_dynamic;
    char *tg_static;
    char *context;
    uint32_t grid[3];
    uint32_t groups[3];
    uint32_t group_size[3];
    uint32_t position[3];
    uint32_t size[3];
} cpu_group;

typedef void (*cpu_kernel_fn)(const cpu_group *g);
/* a kernel's summed atomic adds (emit_defer.c): flush 0 zeroes a worker's sums, 1 adds them */
typedef void (*cpu_deferred_fn)(const cpu_group *g, int flush);

/* Symbols every generated file exports, kernel i being the module's i-th kernel:
 *   enk_kernel_<i>            the function that runs one threadgroup
 *   enk_kernel_<i>_context    size_t: bytes of per-thread context (for 1024 threads)
 *   enk_kernel_<i>_tg_static  size_t: bytes of `threadgroup` variables
 *   enk_content_hash          char[]: the cache key, so a loaded entry can be verified */
#define CPU_MAX_THREADS 1024
#define CPU_MAX_TG_MEMORY (32u * 1024u)

extern const char cpu_prelude[];
/* the first line of every generated file, before the prelude (jit.c hashes the two once) */
extern const char cpu_code_first_line[];

/* IR -> C text for every kernel of the module (appends to out). Needs no device. */
EN_INTERNAL enigma_status cpu_emit_module(const ir_module *m, const en_build_options *o,
                                          en_buf *out, en_buf *err);

typedef struct cpu_kernel {
    const ir_func *func;
    cpu_kernel_fn run;
    cpu_deferred_fn deferred; /* NULL when the kernel adds every atomic where it stands */
    size_t context_bytes;
    size_t tg_static_bytes;
    uint32_t max_threads;
    bool check_apart; /* checked builds: threadgroups may be checked on several executors */
} cpu_kernel;

struct en_program {
    void *library;        /* dlopen handle */
    int kernel_count;
    cpu_kernel *kernels;
    char key[65];
    bool checked;         /* built for checked mode: dispatches pass a cpu_check_group */
};

/* emit, compile through the cache, dlopen, resolve every kernel */
EN_INTERNAL enigma_status cpu_jit_build(const ir_module *m, const en_build_options *o,
                                        en_program **out, en_buf *err);
EN_INTERNAL void cpu_jit_free(en_program *p);

/* the worker pool of one device (exec.c) */
typedef struct cpu_pool cpu_pool;
typedef struct cpu_device {
    int worker_count;      /* threads that run threadgroups, the caller included */
    pthread_mutex_t lock;  /* one dispatch at a time per device */
    pthread_mutex_t running_lock; /* guards `running`, which cancel reads from any thread */
    struct dispatch_job *running; /* the dispatch in progress, or NULL */
    cpu_pool *pool;        /* created on the first dispatch that needs it */
    char model[200];
} cpu_device;

EN_INTERNAL enigma_status cpu_exec_dispatch(cpu_device *dev, en_program *p, en_launch *launch,
                                            en_buf *err);
EN_INTERNAL void cpu_pool_destroy(cpu_pool *pool);
EN_INTERNAL bool cpu_exec_cancel(cpu_device *dev, const en_launch *launch);

typedef struct cpu_buffer {
    void *data;
    size_t size;
    bool borrowed; /* the caller's memory (buffer_borrow): never freed here */
    void *mapping; /* enigma's own buffers: the mapping, guard pages included */
    size_t mapping_size;
} cpu_buffer;

EN_INTERNAL extern const en_backend en_cpu_backend_impl;

#endif
