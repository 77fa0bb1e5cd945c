/* enigma.h — compile Metal Shading Language compute kernels and run them on the CPU or on
 * NVIDIA GPUs.
 *
 * The model is Metal's: a grid of threadgroups (at most 1024 threads each), split into
 * SIMD groups of 32 lanes. A library is compiled from MSL source; a pipeline is one kernel
 * of it; a command binds buffers to a pipeline's parameters and dispatches it.
 *
 *   enigma_device *dev;    enigma_device_open("auto", &dev);
 *   enigma_library *lib;   enigma_library_create_from_file(dev, "k.metal", NULL, &lib);
 *   enigma_pipeline *p;    enigma_pipeline_create(lib, "scale", &p);
 *   enigma_command *cmd;   enigma_command_create(p, &cmd);
 *   enigma_command_set_buffer(cmd, 0, buf, 0);
 *   enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group);
 *
 * Errors. Every call that can fail returns an enigma_status; ENIGMA_OK is 0. On failure a
 * message naming what is wrong (the parameter, the limit with its numbers, or the source
 * position) is left for the calling thread: enigma_last_error(). The library never exits,
 * aborts or prints.
 *
 * Thread safety. Devices, libraries and pipelines may be shared between threads once
 * created. A command and a buffer belong to one thread at a time; a buffer must not be
 * written or read from the host while a dispatch that uses it is queued. The last-error
 * message is per thread.
 *
 * Memory. Every *_create has a *_destroy; strings returned through char** are freed with
 * enigma_free(). Strings returned as const char* live as long as their object. */
#ifndef ENIGMA_H
#define ENIGMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define ENIGMA_API
#else
#define ENIGMA_API __attribute__((visibility("default")))
#endif

#define ENIGMA_VERSION_MAJOR 0
#define ENIGMA_VERSION_MINOR 1
#define ENIGMA_VERSION_PATCH 0
ENIGMA_API const char *enigma_version(void);

typedef enum enigma_status {
    ENIGMA_OK = 0,
    ENIGMA_ERROR_INVALID_ARGUMENT, /* a parameter is wrong: the message names it */
    ENIGMA_ERROR_COMPILE,          /* the source has errors: see the diagnostics */
    ENIGMA_ERROR_LIMIT,            /* a dispatch exceeds a device or pipeline limit */
    ENIGMA_ERROR_UNAVAILABLE,      /* a backend or device is missing: the message says what */
    ENIGMA_ERROR_RUNTIME,          /* a kernel faulted, or the device failed */
    ENIGMA_ERROR_CHECK_FAILED,     /* checked mode found problems: see the reports */
    ENIGMA_ERROR_IO,               /* a file could not be read or written */
    ENIGMA_ERROR_OUT_OF_MEMORY,
    ENIGMA_ERROR_INTERNAL,         /* a bug in enigma; the message has the details */
    ENIGMA_ERROR_TIMEOUT,          /* a dispatch ran past its time limit and was stopped */
    ENIGMA_ERROR_CANCELLED,        /* a dispatch was stopped by enigma_command_cancel */
} enigma_status;

/* the calling thread's message for its last failed call ("" if none) */
ENIGMA_API const char *enigma_last_error(void);
ENIGMA_API const char *enigma_status_name(enigma_status s);
ENIGMA_API void enigma_free(void *p);

/* ---- devices ------------------------------------------------------------------------ */
typedef struct enigma_device enigma_device;

typedef struct enigma_device_info {
    const char *name;                      /* "cpu: <model>", "NVIDIA H100 80GB HBM3" */
    const char *backend;                   /* "cpu" or "cuda" */
    uint32_t max_threads_per_threadgroup;  /* 1024 */
    uint64_t max_threadgroup_memory;       /* bytes: 32 KiB on cpu, the device's on cuda */
    uint32_t simd_width;                   /* 32 */
    uint32_t compute_units;                /* worker threads, or streaming multiprocessors */
    uint64_t memory_bytes;                 /* device memory, 0 if not meaningful */
} enigma_device_info;

/* backend: "cpu", "cuda" or "auto" (cuda where a GPU is present, else cpu); NULL = "auto".
 * "cuda" where CUDA is missing fails with ENIGMA_ERROR_UNAVAILABLE and a message that
 * begins "cuda backend unavailable: ". */
ENIGMA_API enigma_status enigma_device_open(const char *backend, enigma_device **out);
ENIGMA_API void enigma_device_close(enigma_device *dev);
ENIGMA_API enigma_status enigma_device_get_info(const enigma_device *dev, enigma_device_info *out);

/* ---- buffers -------------------------------------------------------------------------- */
typedef struct enigma_buffer enigma_buffer;

/* a zero-filled buffer of `bytes` (> 0) */
ENIGMA_API enigma_status enigma_buffer_create(enigma_device *dev, size_t bytes, enigma_buffer **out);
ENIGMA_API enigma_status enigma_buffer_create_with_data(enigma_device *dev, const void *data,
                                                        size_t bytes, enigma_buffer **out);
ENIGMA_API void enigma_buffer_destroy(enigma_buffer *buf);
ENIGMA_API size_t enigma_buffer_size(const enigma_buffer *buf);
ENIGMA_API enigma_status enigma_buffer_write(enigma_buffer *buf, size_t offset, const void *src,
                                             size_t bytes);
ENIGMA_API enigma_status enigma_buffer_read(const enigma_buffer *buf, size_t offset, void *dst,
                                            size_t bytes);
/* A buffer over memory the caller owns, used in place: no copy is made, and kernels read
 * and write the caller's bytes. `memory` is a host address on a cpu device, and a device
 * address (a CUdeviceptr, as PyTorch, CuPy or cudaMalloc give) of this process's primary
 * context on a cuda device; a cuda device in the worker process (ENIGMA_CUDA_ISOLATE=1, or
 * after a kernel fault) refuses it as ENIGMA_ERROR_UNAVAILABLE. The memory must stay valid
 * until enigma_buffer_destroy, which never frees it. Nothing is zero-filled. */
ENIGMA_API enigma_status enigma_buffer_create_from_memory(enigma_device *dev, void *memory,
                                                          size_t bytes, enigma_buffer **out);
/* The buffer's bytes in host memory. On the cpu backend this is the buffer itself; on
 * cuda it is a host copy, read from the device on map and written back on unmap. */
ENIGMA_API enigma_status enigma_buffer_map(enigma_buffer *buf, void **host);
ENIGMA_API enigma_status enigma_buffer_unmap(enigma_buffer *buf);

/* ---- libraries: compiled MSL -------------------------------------------------------- */
typedef struct enigma_library enigma_library;

typedef struct enigma_compile_options {
    const char *const *include_dirs; /* -I: searched after the including file's folder */
    int include_dir_count;
    const char *const *defines;      /* -D: "NAME" or "NAME=VALUE" */
    int define_count;
    const char *backend_flags;       /* cpu: flags for the C compiler (default
                                        "-O2 -march=native"); cuda: extra NVRTC options */
    bool checked;                    /* instrument for checked execution (cpu backend) */
    bool no_cache;                   /* always recompile; do not read or write the cache */
    /* Values of [[function_constant(index)]] declarations, as Metal's
     * MTLFunctionConstantValues gives them: "NAME=VALUE" or "INDEX=VALUE" (VALUE: true,
     * false or a number of the constant's type). The kernels are specialised to them at
     * compile time: reads become constants and branches they decide are removed before
     * code generation; is_function_constant_defined() is true for exactly these. A library
     * is one specialisation: compile once per set of values (the cache keys each apart). */
    const char *const *function_constants;
    int function_constant_count;
} enigma_compile_options;

typedef enum enigma_severity {
    ENIGMA_SEVERITY_NOTE,
    ENIGMA_SEVERITY_WARNING,
    ENIGMA_SEVERITY_ERROR,
} enigma_severity;

typedef struct enigma_diagnostic {
    enigma_severity severity;
    const char *file; /* NULL when the diagnostic has no source position */
    int line, column; /* 1-based */
    const char *message;
} enigma_diagnostic;

/* Compiles MSL for `dev`; dev may be NULL to run the front end only (diagnostics, --emit).
 * `name` is the file name used in diagnostics (NULL: "<source>"); opts may be NULL.
 * On ENIGMA_ERROR_COMPILE, *out is still set, to a library that holds the diagnostics and
 * no kernels: read them, then destroy it. */
ENIGMA_API enigma_status enigma_library_create_from_source(enigma_device *dev, const char *source,
                                                           size_t length, const char *name,
                                                           const enigma_compile_options *opts,
                                                           enigma_library **out);
ENIGMA_API enigma_status enigma_library_create_from_file(enigma_device *dev, const char *path,
                                                         const enigma_compile_options *opts,
                                                         enigma_library **out);
ENIGMA_API void enigma_library_destroy(enigma_library *lib);

ENIGMA_API int enigma_library_diagnostic_count(const enigma_library *lib);
ENIGMA_API enigma_status enigma_library_get_diagnostic(const enigma_library *lib, int index,
                                                       enigma_diagnostic *out);
/* every diagnostic as text: "file:line:col: error: message", the line and a caret */
ENIGMA_API const char *enigma_library_diagnostics_text(const enigma_library *lib);

ENIGMA_API int enigma_library_kernel_count(const enigma_library *lib);
ENIGMA_API const char *enigma_library_kernel_name(const enigma_library *lib, int index);

/* What a stage made, as text: "ir" (the kernel IR), "c" (the cpu backend's C), "cuda" (the
 * cuda backend's CUDA C). Needs no device. Free the text with enigma_free(). */
ENIGMA_API enigma_status enigma_library_emit(const enigma_library *lib, const char *what, char **text);
/* ... of one kernel (NULL: all), as it is built alone in a library of many kernels */
ENIGMA_API enigma_status enigma_library_emit_kernel(const enigma_library *lib, const char *what, const char *kernel,
                                                    char **text);
/* Builds the library for `backend` ("cpu" or "cuda") as far as it goes without a device
 * (cuda: NVRTC to a cubin for $ENIGMA_CUDA_ARCH, else sm_90; no GPU needed) and returns a
 * one-line summary (free it with enigma_free()). ENIGMA_ERROR_UNAVAILABLE where the
 * backend has no such step or its compiler is missing. */
ENIGMA_API enigma_status enigma_library_build_offline(const enigma_library *lib, const char *backend,
                                                      char **summary);
/* ... of one kernel (NULL: all) */
ENIGMA_API enigma_status enigma_library_build_offline_kernel(const enigma_library *lib, const char *backend,
                                                             const char *kernel, char **summary);
/* ... of `count` kernels (each named once), as one program: one compiler run and one cache
 * entry for all of them (NULL kernels: every kernel) */
ENIGMA_API enigma_status enigma_library_build_offline_kernels(const enigma_library *lib, const char *backend,
                                                              const char *const *kernels, int count,
                                                              char **summary);

/* Building every kernel of a library of many (more than 16 kernels, which are otherwise
 * built one per program, when their first pipeline is made). A build costs a fixed part
 * (the compiler starting, its prelude, loading the result) beside its kernels' share, so
 * kernels are built in batches, several to one program.
 *
 * enigma_library_build_kernels builds `count` kernels (each named once) of the library's
 * device as one program; their pipelines then use it. Kernels already built are left out;
 * a library of 16 kernels or fewer was built whole when it was made, and has nothing left
 * to do. All or nothing: when the build fails, no kernel of it is kept and the error is
 * the whole program's; build the kernels alone (enigma_pipeline_create) to learn which
 * failed. A batch's cache entry serves that same batch again, not a pipeline built alone. */
ENIGMA_API enigma_status enigma_library_build_kernels(enigma_library *lib, const char *const *kernels, int count);
/* Cuts `count` kernels into batches for `backend`: batch_of[i] gets the batch of kernels[i]
 * (0 to *batch_count - 1, numbered in order of their first kernel). A batch holds at most
 * max_kernels kernels (0: enigma's default, 16) and a bounded amount of code; with `jobs`
 * builds at once (0 or 1: not bounded so), batches are made small enough that each job
 * gets several. The same arguments give the same batches, so a second build finds them cached. */
ENIGMA_API enigma_status enigma_library_plan_batches(const enigma_library *lib, const char *backend,
                                                     const char *const *kernels, int count, int max_kernels,
                                                     int jobs, int *batch_of, int *batch_count);

/* ---- pipelines: one kernel, with Metal's introspection -------------------------------- */
typedef struct enigma_pipeline enigma_pipeline;

typedef enum enigma_param_kind {
    ENIGMA_PARAM_BUFFER,             /* [[buffer(n)]]: bind a buffer or bytes */
    ENIGMA_PARAM_THREADGROUP_MEMORY, /* [[threadgroup(n)]]: set its length per dispatch */
    ENIGMA_PARAM_ATTRIBUTE,          /* a thread-position attribute: nothing to bind */
} enigma_param_kind;

typedef enum enigma_scalar {
    ENIGMA_SCALAR_NONE, /* struct, or not a plain number */
    ENIGMA_SCALAR_BOOL,
    ENIGMA_SCALAR_I8, ENIGMA_SCALAR_U8, ENIGMA_SCALAR_I16, ENIGMA_SCALAR_U16,
    ENIGMA_SCALAR_I32, ENIGMA_SCALAR_U32, ENIGMA_SCALAR_I64, ENIGMA_SCALAR_U64,
    ENIGMA_SCALAR_F16, ENIGMA_SCALAR_BF16, ENIGMA_SCALAR_F32,
} enigma_scalar;

typedef struct enigma_param_info {
    const char *name;
    enigma_param_kind kind;
    int index;                 /* the buffer or threadgroup binding index; -1 for attributes */
    const char *type_name;     /* as declared: "device const float*", "constant uint&", "uint2" */
    const char *element_type;  /* what one element is: "float", "half4", "Params" */
    enigma_scalar element_scalar; /* the element's scalar type (of a vector: its lanes') */
    int element_lanes;         /* 1, or the vector's lane count */
    size_t element_size;       /* bytes, MSL layout (float3: 16); a void pointer counts bytes: 1 */
    bool is_const;             /* constant address space, or const-qualified */
    bool is_reference;         /* declared T& (one element expected) rather than T* */
    const char *attribute;     /* ATTRIBUTE: "thread_position_in_grid", ... */
} enigma_param_info;

typedef struct enigma_pipeline_info {
    const char *name;
    uint32_t max_total_threads_per_threadgroup; /* honours [[max_total_threads_per_threadgroup]] */
    uint32_t thread_execution_width;            /* 32 */
    uint64_t static_threadgroup_memory_length;  /* bytes of `threadgroup` variables */
    int param_count;
} enigma_pipeline_info;

/* kernel NULL: the library's only kernel (an error naming the kernels if there are several) */
ENIGMA_API enigma_status enigma_pipeline_create(enigma_library *lib, const char *kernel,
                                                enigma_pipeline **out);
ENIGMA_API void enigma_pipeline_destroy(enigma_pipeline *p);
ENIGMA_API enigma_status enigma_pipeline_get_info(const enigma_pipeline *p, enigma_pipeline_info *out);
ENIGMA_API enigma_status enigma_pipeline_get_param(const enigma_pipeline *p, int i, enigma_param_info *out);
/* the parameter index of a name, or -1 */
ENIGMA_API int enigma_pipeline_find_param(const enigma_pipeline *p, const char *name);

/* ---- commands: bindings and dispatch ------------------------------------------------ */
typedef struct enigma_command enigma_command;

typedef struct enigma_size3 {
    uint32_t x, y, z;
} enigma_size3;

typedef enum enigma_dispatch_mode {
    ENIGMA_DISPATCH_THREADGROUPS, /* size counts threadgroups (dispatchThreadgroups) */
    ENIGMA_DISPATCH_THREADS,      /* size counts threads; edge groups shrink (dispatchThreads) */
} enigma_dispatch_mode;

ENIGMA_API enigma_status enigma_command_create(enigma_pipeline *p, enigma_command **out);
ENIGMA_API void enigma_command_destroy(enigma_command *cmd);
/* a buffer, from `offset` bytes into it, for [[buffer(index)]] */
ENIGMA_API enigma_status enigma_command_set_buffer(enigma_command *cmd, int index,
                                                   enigma_buffer *buf, size_t offset);
/* bytes copied now, for [[buffer(index)]] (Metal's setBytes) */
ENIGMA_API enigma_status enigma_command_set_bytes(enigma_command *cmd, int index,
                                                  const void *data, size_t bytes);
ENIGMA_API enigma_status enigma_command_set_buffer_by_name(enigma_command *cmd, const char *name,
                                                           enigma_buffer *buf, size_t offset);
ENIGMA_API enigma_status enigma_command_set_bytes_by_name(enigma_command *cmd, const char *name,
                                                          const void *data, size_t bytes);
/* the length of [[threadgroup(index)]] memory for later dispatches (0 bytes too, as in Metal) */
ENIGMA_API enigma_status enigma_command_set_threadgroup_memory(enigma_command *cmd, int index,
                                                               size_t bytes);

/* runs and waits */
ENIGMA_API enigma_status enigma_command_dispatch(enigma_command *cmd, enigma_dispatch_mode mode,
                                                 enigma_size3 size, enigma_size3 threads_per_group);
/* queues and returns; enigma_command_wait() waits and returns the dispatch's status */
ENIGMA_API enigma_status enigma_command_enqueue(enigma_command *cmd, enigma_dispatch_mode mode,
                                                enigma_size3 size, enigma_size3 threads_per_group);
ENIGMA_API enigma_status enigma_command_wait(enigma_command *cmd);
/* A time limit for each later dispatch of this command, in nanoseconds (0: none, the
 * default unless ENIGMA_DISPATCH_TIMEOUT gives one in seconds). A dispatch past it is stopped
 * and returns ENIGMA_ERROR_TIMEOUT naming the kernel; the device stays usable. cpu backend:
 * the kernel is interrupted where it runs (src/cpu/fault.c). */
ENIGMA_API enigma_status enigma_command_set_timeout(enigma_command *cmd, uint64_t timeout_ns);
/* From any thread: stops this command's dispatch if one is running; the dispatching call
 * returns ENIGMA_ERROR_CANCELLED. Nothing happens when none is running. */
ENIGMA_API enigma_status enigma_command_cancel(enigma_command *cmd);
/* nanoseconds the last dispatch ran on the device (0 if unknown) */
ENIGMA_API uint64_t enigma_command_last_duration_ns(const enigma_command *cmd);

/* ---- checked execution: the reports of the last dispatch ----------------------------- */
typedef enum enigma_check_kind {
    ENIGMA_CHECK_OUT_OF_BOUNDS,
    ENIGMA_CHECK_DATA_RACE,
    ENIGMA_CHECK_BARRIER_DIVERGENCE,
    ENIGMA_CHECK_UNINITIALIZED_READ,
    ENIGMA_CHECK_INACTIVE_LANE,
    ENIGMA_CHECK_DIVISION_BY_ZERO,
} enigma_check_kind;

typedef struct enigma_check_report {
    enigma_check_kind kind;
    const char *kind_name;  /* "out-of-bounds", "data-race", ... */
    const char *file;
    int line, column;
    const char *message;    /* what happened, which threads, which buffer and index */
    uint64_t count;         /* how many times it happened (reports are per kind and place) */
} enigma_check_report;

ENIGMA_API int enigma_command_report_count(const enigma_command *cmd);
ENIGMA_API enigma_status enigma_command_get_report(const enigma_command *cmd, int index,
                                                   enigma_check_report *out);
/* every report as text, one line each, then a summary line */
ENIGMA_API const char *enigma_command_reports_text(const enigma_command *cmd);

#ifdef __cplusplus
}
#endif
#endif
