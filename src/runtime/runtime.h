/* runtime.h — the objects behind include/enigma.h, shared by the files of src/runtime.
 *
 * Ownership: a buffer and a library hold a reference on their device, a pipeline on its
 * library, a command on its pipeline; each object is freed when its last holder lets go,
 * so any destroy order is safe. References are atomic because devices, libraries and
 * pipelines may be shared between threads. */
#ifndef ENIGMA_RUNTIME_H
#define ENIGMA_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>

#include "../base/ctx.h"
#include "backend.h"

/* ---- errors (error.c) ----------------------------------------------------------------- */
/* sets the calling thread's last-error message and returns `status` */
EN_INTERNAL enigma_status en_fail(enigma_status status, const char *fmt, ...) EN_PRINTF(2, 3);
/* the same from a backend's err buffer, after a prefix ("" for none) */
EN_INTERNAL enigma_status en_fail_buf(enigma_status status, const char *prefix, const en_buf *err);

/* ---- objects ----------------------------------------------------------------------------- */
struct enigma_device {
    atomic_int refs;
    en_device core; /* what the backend sees */
};

struct enigma_buffer {
    enigma_device *dev;
    void *handle;
    size_t size;
    void *mapped;       /* the host pointer handed out by map, or NULL */
    bool mapped_copy;   /* mapped is a host copy (malloc) to write back on unmap */
};

struct enigma_library {
    atomic_int refs;
    enigma_device *dev;      /* NULL: front end only */
    en_ctx ctx;              /* owns the sources, the diagnostics and the IR */
    ir_module *module;       /* NULL after compile errors */
    en_program *program;     /* the backend's build of every kernel, when dev != NULL and the
                                library is built at once (see en_library_program) */
    /* A library of many kernels (ggml's 689) is built a kernel at a time, when its first
     * pipeline is created, or several kernels into one program by
     * enigma_library_build_kernels: kernel i's program and its index there, under
     * build_lock; every such build is kept in `builds` until the library is freed */
    bool per_kernel;
    en_program **kernel_programs;
    int *kernel_program_index;
    struct en_kernel_build *builds;
    pthread_mutex_t build_lock;
    en_build_options build;  /* as compiled; backend_flags points at flags_storage */
    char *flags_storage;
    enigma_diagnostic *diags;
    int diag_count;
    char *diags_text;
    const ir_func **kernels; /* the module's kernels in order (their index is the backend's) */
    int kernel_count;
};

struct enigma_pipeline {
    atomic_int refs;
    enigma_library *lib;
    const ir_func *kernel;
    int kernel_index;               /* in the library */
    en_program *program;            /* the build that holds it (NULL without a device) */
    int program_kernel;             /* its index in that build */
    en_arena arena;                 /* the strings of info and params */
    enigma_pipeline_info info;
    enigma_param_info *params;
    const ir_var **param_vars;
    uint64_t device_threadgroup_limit; /* bytes; 0 when there is no device */
};

EN_INTERNAL void en_device_release(enigma_device *dev);
EN_INTERNAL void en_library_release(enigma_library *lib);
/* the backend build that holds kernel `index` of lib, and its index there; builds it
 * first when the library is built a kernel at a time */
EN_INTERNAL enigma_status en_library_program(enigma_library *lib, int index, en_program **program,
                                             int *program_kernel);
EN_INTERNAL void en_pipeline_release(enigma_pipeline *p);

/* ---- the checked-mode sink (check_sink.c) ------------------------------------------- */
typedef struct en_check_entry {
    enigma_check_kind kind;
    en_loc loc;
    char *message;
    uint64_t count;
    uint64_t order; /* of the event whose message this is (en_check_report) */
} en_check_entry;

EN_INTERNAL en_check_sink *en_check_sink_new(const en_sources *sources);
EN_INTERNAL void en_check_sink_free(en_check_sink *s);
EN_INTERNAL void en_check_sink_clear(en_check_sink *s);
EN_INTERNAL int en_check_sink_count(const en_check_sink *s);
/* report i, with file names resolved; false if out of range */
EN_INTERNAL bool en_check_sink_get(en_check_sink *s, int i, enigma_check_report *out);
/* one line per report then a summary; "" when there are none. Lives until the next clear. */
EN_INTERNAL const char *en_check_sink_text(en_check_sink *s, const char *kernel);
EN_INTERNAL const char *en_check_kind_name(enigma_check_kind k);

#endif
