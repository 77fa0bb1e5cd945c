/* backend.h — what the runtime asks of a backend. Each backend (src/cpu, src/cuda) fills
 * one en_backend with designated initializers in its device.c, and the runtime only ever
 * calls through it. Failures return an enigma_status and append a message to `err`. */
#ifndef ENIGMA_BACKEND_H
#define ENIGMA_BACKEND_H

#include "../../include/enigma.h"
#include "../base/base.h"
#include "../ir/ir.h"

#define EN_MAX_BINDINGS 31        /* [[buffer(0..30)]], as Metal */
#define EN_MAX_TG_BINDINGS 31     /* [[threadgroup(0..30)]] */

typedef struct en_backend en_backend;
typedef struct en_program en_program; /* a backend's compiled module: all its kernels */

typedef struct en_device {
    const en_backend *backend;
    void *impl;                    /* the backend's own device state */
    enigma_device_info info;
    char name_storage[256];
} en_device;

/* One buffer binding as the kernel sees it: the backend's buffer handle plus offset, or
 * bytes the runtime copied into a backend buffer for this dispatch. */
typedef struct en_binding {
    void *handle;   /* from buffer_alloc; NULL when unbound */
    size_t offset;  /* bytes into the buffer */
    size_t size;    /* bytes visible to the kernel from offset (for checked mode) */
} en_binding;

/* A checked-mode record, as backends report it; the runtime deduplicates by kind and
 * location and counts. */
typedef struct en_check_event {
    enigma_check_kind kind;
    en_loc loc;
    const char *message; /* the backend's text; copied by the sink */
} en_check_event;

typedef struct en_check_sink en_check_sink; /* src/runtime/check_sink.c; thread-safe */
/* order: the event's place in the dispatch, which decides the message a report keeps and
 * the order of the reports (check_sink.c): a threadgroup's linear index, then the order
 * within it, e.g. (group << 24) | event */
EN_INTERNAL void en_check_report(en_check_sink *s, enigma_check_kind kind, en_loc loc, uint64_t order,
                                 const char *fmt, ...) EN_PRINTF(5, 6);

typedef struct en_launch {
    const ir_module *module;
    const ir_func *kernel;
    int kernel_index;              /* index among the module's kernels */
    uint32_t groups[3];            /* threadgroups per grid */
    uint32_t group_size[3];        /* threads per threadgroup, as dispatched */
    uint32_t grid[3];              /* threads per grid: as asked (by threads) or groups*size */
    bool by_threads;               /* edge threadgroups shrink to fit `grid` */
    en_binding buffers[EN_MAX_BINDINGS];
    size_t threadgroup_memory[EN_MAX_TG_BINDINGS]; /* bytes of each [[threadgroup(n)]] */
    en_check_sink *check;          /* non-NULL for checked programs */
    uint64_t duration_ns;          /* out: device time if the backend measures it */
    uint64_t timeout_ns;           /* 0: none; past it the dispatch ends with ENIGMA_ERROR_TIMEOUT */
} en_launch;

typedef struct en_build_options {
    const char *backend_flags;     /* cpu: cc flags; cuda: NVRTC options */
    bool checked;
    bool no_cache;
    /* the digest of what the compile read (input_key.c), when has_input_digest: equal
     * digests give equal IR, so a backend may key its cache on it and skip emitting */
    bool has_input_digest;
    uint8_t input_digest[32];
} en_build_options;

typedef struct en_kernel_limits {
    uint32_t max_total_threads_per_threadgroup; /* the backend's own bound for this kernel */
    uint64_t static_threadgroup_memory;         /* bytes */
} en_kernel_limits;

struct en_backend {
    const char *name; /* "cpu", "cuda" */

    /* devices: fills dev->impl and dev->info; UNAVAILABLE with the reason if it cannot */
    enigma_status (*open)(en_device *dev, en_buf *err);
    void (*close)(en_device *dev);

    /* memory: handles are opaque to the runtime */
    enigma_status (*buffer_alloc)(en_device *dev, size_t bytes, void **handle, en_buf *err);
    void (*buffer_free)(en_device *dev, void *handle);
    enigma_status (*buffer_write)(en_device *dev, void *handle, size_t offset, const void *src,
                                  size_t bytes, en_buf *err);
    enigma_status (*buffer_read)(en_device *dev, void *handle, size_t offset, void *dst,
                                 size_t bytes, en_buf *err);
    /* the host address of the buffer's bytes, or NULL if it has none (cuda) */
    void *(*buffer_host)(en_device *dev, void *handle);
    /* a handle over memory the caller owns, used in place: a host address (cpu) or a device
     * address of the device's context (cuda). buffer_free releases the handle, never the
     * memory. NULL when the backend cannot borrow memory. */
    enigma_status (*buffer_borrow)(en_device *dev, void *memory, size_t bytes, void **handle,
                                   en_buf *err);

    /* code: the generated source, for --emit; needs no device */
    enigma_status (*emit)(const ir_module *m, const en_build_options *o, en_buf *out, en_buf *err);
    /* compile (through the cache) and load every kernel of the module */
    enigma_status (*build)(en_device *dev, const ir_module *m, const en_build_options *o,
                           en_program **out, en_buf *err);
    void (*program_free)(en_device *dev, en_program *p);
    /* kernels built in one program (a batch) share the choices a backend makes for a whole
     * program from its kernels; kernels of different groups are built apart, so that a
     * kernel's code never depends on which others share its program. NULL: one group. */
    int (*batch_group)(const ir_module *m, const ir_func *kernel);
    enigma_status (*kernel_limits)(en_device *dev, en_program *p, int kernel_index,
                                   en_kernel_limits *out, en_buf *err);

    /* run: dispatch returns when the work is queued; wait returns when it is done */
    enigma_status (*dispatch)(en_device *dev, en_program *p, en_launch *launch, en_buf *err);
    enigma_status (*wait)(en_device *dev, en_launch *launch, en_buf *err);
    /* from any thread: end `launch` if it is still running, with ENIGMA_ERROR_CANCELLED;
     * false when the backend cannot stop a running dispatch */
    bool (*cancel)(en_device *dev, const en_launch *launch);

    /* compile without a device (`enigma compile FILE --backend cuda`): every step of build
     * short of loading, for the backend's default target (cuda: $ENIGMA_CUDA_ARCH, else
     * sm_90); `out` gets a one-line summary (target, size, time, cache). NULL when the
     * backend has no device-free compile step. */
    enigma_status (*compile_offline)(const ir_module *m, const en_build_options *o, en_buf *out,
                                     en_buf *err);
};

EN_INTERNAL extern const en_backend en_cpu_backend;
EN_INTERNAL extern const en_backend en_cuda_backend;
/* the backend called `name` ("cpu" or "cuda"), or NULL */
EN_INTERNAL const en_backend *en_backend_named(const char *name);

#endif
