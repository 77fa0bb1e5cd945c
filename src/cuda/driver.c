/* driver.c — the cuda backend's device: the CUDA driver API (loaded by dl.c) for the
 * context, memory, modules and launches.
 *
 * Needs: libcuda.so.1 with a device, and NVRTC for builds.
 * Guarantees:
 *   - one device per en_device, on its primary context, with one stream that every
 *     dispatch and copy of that device goes through (so they run in order);
 *   - every entry point (buffer alloc/free/read/write, build, dispatch, wait) starts with
 *     enter(): it refuses a lost device and makes the device's context current on the
 *     calling thread (a CUDA context is per thread, and any thread may call);
 *   - buffers are plain device allocations moved by explicit copies (buffer_host is NULL);
 *   - a dispatch does no allocation and no synchronisation: function handles are looked up
 *     at build time, parameters are packed on the stack, and the dynamic shared-memory
 *     limit is raised only when a dispatch needs more than before;
 *   - timing is opt-in: with ENIGMA_CUDA_TIMING=1 each dispatch records two events (from a
 *     small ring) and the wait reports their elapsed time as duration_ns; by default it
 *     records none, duration_ns stays 0 (enigma_command_last_duration_ns then gives the
 *     host's enqueue-to-wait time) and the default back-to-back dispatch costs one
 *     cuLaunchKernel plus a cuCtxSetCurrent and a mutex;
 *   - a kernel that faults (illegal address, trap, ...) is reported as ENIGMA_ERROR_RUNTIME
 *     naming the kernel, and the process carries on with a fresh context: programs are
 *     reloaded on their next dispatch and every buffer that existed before the reset is
 *     lost (using it is an ENIGMA_ERROR_RUNTIME that says so). The context is first reset
 *     and retained again in this process. The drivers measured so far (580.x, CUDA 13)
 *     refuse that: after a sticky fault every context creation in the faulting process
 *     fails with the fault's error (NVIDIA documents that the process must be restarted;
 *     bench/cuda/NOTES.md has the experiment). So the device then moves to the CUDA worker
 *     (remote.c): the same driver table, every call forwarded to a child process that owns
 *     the GPU. A fault inside the worker is recovered the same way, by a fresh worker
 *     process. Only when no worker can start either is the device marked lost: every later
 *     call on it is an ENIGMA_ERROR_RUNTIME that gives both reasons, without calling CUDA.
 *     The reset also ends any other use of the primary context in the process (e.g. the
 *     CUDA runtime of a host program sharing it);
 *   - `cu` (the driver table), `ctx`, `stream` and `generation` change only under the lock,
 *     at a reset; every entry point takes them together in enter() (a cuda_session), and a
 *     fault found through a session older than the current generation has been recovered
 *     already and resets nothing.
 * Environment: ENIGMA_CUDA_ISOLATE=1 puts every device on the worker from the start, so
 * that no kernel ever runs in this process (for untrusted kernels, and for tests). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "internal.h"

#define EN_TIMING_SLOTS 64
#define EN_MAX_KERNEL_ARGS 128

typedef struct timing_slot {
    const en_launch *launch;  /* the launch whose events these are; NULL when free */
    CUevent start, end;
    unsigned generation;      /* events of an older context are dead */
} timing_slot;

struct en_cuda_device {
    const en_cuda_driver *cu; /* in-process (dl.c), or the worker's (remote.c) when `remote` */
    bool remote;
    int ordinal;              /* to find the same GPU again in a fresh worker */
    CUdevice device;
    CUcontext ctx;
    int retains;              /* primary-context retains to release at close */
    CUstream stream;
    int cc_major, cc_minor;
    int max_shared_optin;     /* bytes a block may get after opting in */
    int max_grid[3];
    atomic_uint generation;   /* bumped by each context reset after a fault */
    pthread_mutex_t lock;     /* cu/ctx/stream, the timing ring, resets and program reloads */
    bool timing;
    timing_slot slots[EN_TIMING_SLOTS];
    int next_slot;
    const char *last_kernel;  /* the kernel most recently queued, for fault messages */
    /* set (under the lock, once) when the driver gave no working context back after a
     * fault; `lost_why` is written before and never changes after */
    atomic_bool lost;
    char lost_why[2048];
    /* enigma_command_cancel: the launch whose wait should stop (devices on the worker) */
    _Atomic(const en_launch *) cancel_target;
    /* a stopped dispatch ended the worker: the next entry point starts a fresh one first */
    bool abandoned;
};

/* what one call of an entry point works with, taken together under the lock (enter()) */
typedef struct cuda_session {
    const en_cuda_driver *cu;
    CUstream stream;
    unsigned generation;
} cuda_session;

/* Buffers of at most EN_SHADOW_BYTES keep a host copy of their bytes while it is exact, so
 * that a small `constant T &` binding (set_bytes, or a tiny buffer) is passed to the kernel
 * by value (internal.h: en_cuda_param_by_value). Exact means: every byte came from the
 * zero fill or a host write, and no dispatch has bound the buffer where a kernel could
 * write it (any binding outside the constant address space ends the copy's validity until
 * a host write covers the whole buffer again). Dispatches, copies and host writes are in
 * stream order, so the copy taken at a dispatch is what that kernel would have read. */
#define EN_SHADOW_BYTES 64
typedef struct cuda_buffer {
    CUdeviceptr ptr;
    size_t size;
    unsigned generation;
    bool shadow_ok;
    bool borrowed; /* the caller's device memory (buffer_borrow): never freed here, and
                    * never shadowed, since its owner may write it at any time */
    _Alignas(16) unsigned char shadow[EN_SHADOW_BYTES];
} cuda_buffer;

typedef struct cuda_kernel {
    const ir_func *f;
    CUfunction fn[4];         /* the general entry point, the fast one, the warpgroup's or NULL, a
                               * quad's or NULL (internal.h) */
    int dynamic_limit[4];     /* MAX_DYNAMIC_SHARED_SIZE_BYTES as set now (48 KiB default) */
    uint32_t quad_shared;     /* the quad's staging, dynamic shared memory (wgmma_merge.c) */
    int static_shared;        /* bytes of static __shared__ (the larger of the two) */
    int max_threads;          /* the functions' own bound (registers; the smaller) */
    bool whole_warps;         /* launched in whole warps (en_cuda_apple_lanes) */
    en_cuda_shared_layout layout;
} cuda_kernel;

struct en_program {
    void *cubin;              /* kept to reload the module after a context reset */
    size_t cubin_size;
    CUmodule module;
    unsigned generation;
    int kernel_count;
    cuda_kernel *kernels;     /* in the module's kernel order (en_launch.kernel_index) */
};

static en_cuda_device *impl(en_device *dev) { return dev->impl; }

/* faults that leave the context unusable: only a reset brings it back */
static bool is_sticky_fault(int r) {
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR: case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC: case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: /* e.g. a host program's cudaDeviceReset */
        return true;
    default:
        return false;
    }
}

/* The one step every entry point takes first (lock held): a lost device is refused
 * without calling CUDA, else the device's context becomes current on this thread (cheap:
 * a thread-local store, in the driver or in remote.c) and `s` gets what the call uses. */
static void reset_context(en_cuda_device *d, const char *kernel, en_buf *err);

static enigma_status enter_locked(en_cuda_device *d, cuda_session *s, en_buf *err) {
    if (atomic_load(&d->lost)) {
        if (err) en_buf_puts(err, d->lost_why);
        return ENIGMA_ERROR_RUNTIME;
    }
    if (d->abandoned) { /* the fresh worker a stopped dispatch left for later (lock held) */
        d->abandoned = false;
        en_buf note = {0};
        reset_context(d, d->last_kernel ? d->last_kernel : "?", &note);
        en_buf_free(&note);
        if (atomic_load(&d->lost)) {
            if (err) en_buf_puts(err, d->lost_why);
            return ENIGMA_ERROR_RUNTIME;
        }
    }
    *s = (cuda_session){d->cu, d->stream, atomic_load(&d->generation)};
    return EN_CU(d->cu, err, cuCtxSetCurrent(d->ctx)) ? ENIGMA_ERROR_RUNTIME : ENIGMA_OK;
}

static enigma_status enter(en_cuda_device *d, cuda_session *s, en_buf *err) {
    if (atomic_load(&d->lost)) return enter_locked(d, s, err); /* says why, lock-free */
    pthread_mutex_lock(&d->lock);
    enigma_status st = enter_locked(d, s, err);
    pthread_mutex_unlock(&d->lock);
    return st;
}

/* The device on a fresh CUDA worker process (lock held): the worker's own context, stream
 * and device handle for the same ordinal. A device already on the worker gets a new
 * process (the old one is poisoned for good); one in this process moves over. */
static bool start_in_worker(en_cuda_device *d, en_buf *why) {
    const en_cuda_driver *rc = d->remote ? d->cu : en_cuda_remote_driver(why);
    if (!rc) return false;
    if (d->remote) {
        rc->cuCtxSetCurrent(NULL);
        d->retains = 0; /* they lived in the worker that the reset ends */
        if (EN_CU(rc, why, cuDevicePrimaryCtxReset(d->device))) return false;
    }
    CUdevice device = 0;
    CUcontext ctx = NULL;
    CUstream stream = NULL;
    if (EN_CU(rc, why, cuInit(0)) || EN_CU(rc, why, cuDeviceGet(&device, d->ordinal)) ||
        EN_CU(rc, why, cuDevicePrimaryCtxRetain(&ctx, device))) {
        en_cuda_remote_stop_if_idle();
        return false;
    }
    if (EN_CU(rc, why, cuCtxSetCurrent(ctx)) || EN_CU(rc, why, cuStreamCreate(&stream, 0))) {
        rc->cuDevicePrimaryCtxRelease(device);
        return false;
    }
    d->cu = rc;
    d->remote = true;
    d->device = device;
    d->ctx = ctx;
    d->stream = stream;
    d->retains = 1;
    return true;
}

/* after a fault: a fresh context, stream and timing ring (lock held). In this process
 * first: the reset destroys the context's memory, modules, streams and events whatever
 * happens next, and the retain that follows tells whether the driver lets this process go
 * on (a failed retain does not count as one: the driver measured leaves the count alone).
 * Where it does not, or the device is on the worker already, a fresh worker process. */
static void reset_context(en_cuda_device *d, const char *kernel, en_buf *err) {
    for (int i = 0; i < EN_TIMING_SLOTS; i++) d->slots[i] = (timing_slot){0};
    d->stream = NULL;
    en_buf in_process = {0}, in_worker = {0};
    bool recovered = false;
    if (!d->remote) {
        const en_cuda_driver *cu = d->cu;
        cu->cuCtxSetCurrent(NULL); /* nothing of the dead context stays current on this thread */
        CUcontext fresh = NULL;
        if (EN_CU(cu, &in_process, cuDevicePrimaryCtxReset(d->device)) == 0 &&
            EN_CU(cu, &in_process, cuDevicePrimaryCtxRetain(&fresh, d->device)) == 0) {
            d->retains++;
            d->ctx = fresh;
            recovered = EN_CU(cu, &in_process, cuCtxSetCurrent(d->ctx)) == 0 &&
                        EN_CU(cu, &in_process, cuStreamCreate(&d->stream, 0)) == 0;
        }
        if (recovered) {
            en_buf_puts(err, "; the CUDA context was reset: buffers created before this are lost");
        } else {
            /* this process's context is gone for good: let go of it before moving */
            cu->cuCtxSetCurrent(NULL);
            for (; d->retains > 0; d->retains--) cu->cuDevicePrimaryCtxRelease(d->device);
        }
    }
    if (!recovered) {
        recovered = start_in_worker(d, &in_worker);
        if (recovered)
            en_buf_puts(err, "; the CUDA context was reset in a fresh worker process: buffers created "
                             "before this are lost");
    }
    if (!recovered) {
        snprintf(d->lost_why, sizeof d->lost_why,
                 "this CUDA device is lost: kernel '%s' faulted; %s%s%sno fresh CUDA worker process could "
                 "take over (%s); close the device and run again in a new process",
                 kernel, in_process.len ? "the CUDA driver gives this process no working context after "
                                          "such a fault (" : "",
                 in_process.len ? in_process.data : "", in_process.len ? "), and " : "",
                 in_worker.data ? in_worker.data : "?");
        atomic_store(&d->lost, true);
        en_buf_printf(err, "; the CUDA driver cannot recover from this inside the process, and no fresh "
                           "worker process could take over (%s): this device handle now refuses every "
                           "call (close it; a new process gets a working GPU)",
                      in_worker.data ? in_worker.data : "?");
    }
    /* last: a session that sees the new generation also sees the new cu, ctx and stream */
    atomic_fetch_add(&d->generation, 1);
    en_buf_free(&in_process);
    en_buf_free(&in_worker);
}

/* the message for a fault, then the reset; `kernel` is the one being waited for, and
 * `generation` the session's that found the fault (lock held) */
static enigma_status fault(en_cuda_device *d, const char *kernel, const char *what, unsigned generation,
                           en_buf *err) {
    en_buf_printf(err, "kernel '%s' faulted on the GPU: %s", kernel, what);
    if (d->last_kernel && kernel && strcmp(d->last_kernel, kernel) != 0)
        en_buf_printf(err, " (the fault may come from kernel '%s', queued after it)", d->last_kernel);
    if (atomic_load(&d->lost)) return ENIGMA_ERROR_RUNTIME; /* another thread got there first */
    if (generation != atomic_load(&d->generation)) {
        /* another call found this fault first and the context was reset since */
        en_buf_puts(err, "; the CUDA context was reset already: buffers created before that are lost");
        return ENIGMA_ERROR_RUNTIME;
    }
    reset_context(d, kernel, err);
    return ENIGMA_ERROR_RUNTIME;
}

/* a failed call of an entry point: a sticky fault (an earlier kernel's, found by this call)
 * goes through fault(), anything else is reported as it is */
static enigma_status call_failed(en_cuda_device *d, const cuda_session *s, int r, const char *why,
                                 en_buf *err) {
    if (!is_sticky_fault(r)) {
        en_buf_puts(err, why);
        return r == CUDA_ERROR_OUT_OF_MEMORY ? ENIGMA_ERROR_OUT_OF_MEMORY : ENIGMA_ERROR_RUNTIME;
    }
    pthread_mutex_lock(&d->lock);
    enigma_status st = fault(d, d->last_kernel ? d->last_kernel : "?", why, s->generation, err);
    pthread_mutex_unlock(&d->lock);
    return st;
}

/* ---- devices -------------------------------------------------------------------------------- */
/* the device on `cu` (in-process, or the worker's when `remote`) */
static enigma_status open_on(en_device *dev, const en_cuda_driver *cu, bool remote, en_buf *err) {
    en_buf why = {0};
    if (EN_CU(cu, &why, cuInit(0))) {
        en_buf_printf(err, "no usable CUDA device: %s", why.data);
        en_buf_free(&why);
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    int count = 0;
    if (EN_CU(cu, &why, cuDeviceGetCount(&count)) || count == 0) {
        en_buf_printf(err, "no CUDA device found%s%s", why.len ? ": " : "", why.data ? why.data : "");
        en_buf_free(&why);
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    const char *want = getenv("ENIGMA_CUDA_DEVICE");
    int ordinal = want && *want ? atoi(want) : 0;
    if (ordinal < 0 || ordinal >= count) {
        en_buf_printf(err, "ENIGMA_CUDA_DEVICE=%s, but there %s %d CUDA device%s (0 to %d)", want,
                      count == 1 ? "is" : "are", count, count == 1 ? "" : "s", count - 1);
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    /* builds need NVRTC: without it the backend could open but never run anything */
    if (!en_nvrtc_load(err)) return ENIGMA_ERROR_UNAVAILABLE;

    en_cuda_device *d = calloc(1, sizeof *d);
    if (!d) {
        en_buf_puts(err, "out of memory");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    d->cu = cu;
    d->remote = remote;
    d->ordinal = ordinal;
    pthread_mutex_init(&d->lock, NULL);
    const char *timing = getenv("ENIGMA_CUDA_TIMING");
    d->timing = timing && strcmp(timing, "1") == 0; /* opt-in: see the top of this file */
    int max_threads = 1024, sms = 0, shared_default = 48 * 1024;
    size_t total = 0;
    enigma_status st = ENIGMA_OK;
    if (EN_CU(cu, err, cuDeviceGet(&d->device, ordinal)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&shared_default, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&d->max_shared_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&d->max_grid[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&d->max_grid[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, d->device)) ||
        EN_CU(cu, err, cuDeviceGetAttribute(&d->max_grid[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, d->device)) ||
        EN_CU(cu, err, cuDeviceGetName(dev->name_storage, (int)sizeof dev->name_storage, d->device)) ||
        EN_CU(cu, err, cuDeviceTotalMem(&total, d->device)))
        st = ENIGMA_ERROR_UNAVAILABLE;
    int r = st == ENIGMA_OK ? EN_CU(cu, &why, cuDevicePrimaryCtxRetain(&d->ctx, d->device)) : 0;
    if (r == 0 && st == ENIGMA_OK) {
        d->retains = 1;
        if (EN_CU(cu, err, cuCtxSetCurrent(d->ctx)) || EN_CU(cu, err, cuStreamCreate(&d->stream, 0))) {
            EN_CU(cu, NULL, cuDevicePrimaryCtxRelease(d->device));
            st = ENIGMA_ERROR_UNAVAILABLE;
        }
    } else if (r != 0 && !remote && is_sticky_fault(r)) {
        /* a kernel of this process faulted on this GPU earlier, and the driver gives the
         * process no new context (see fault()): a worker process has a context of its own */
        en_buf worker_why = {0};
        if (!start_in_worker(d, &worker_why)) {
            en_buf_printf(err, "%s (a kernel of this process faulted on this GPU earlier: the CUDA driver gives "
                               "the process no new context, and no CUDA worker process could start: %s)",
                          why.data, worker_why.data ? worker_why.data : "?");
            st = ENIGMA_ERROR_UNAVAILABLE;
        }
        en_buf_free(&worker_why);
    } else if (r != 0) {
        en_buf_puts(err, why.data);
        st = ENIGMA_ERROR_UNAVAILABLE;
    }
    en_buf_free(&why);
    if (st != ENIGMA_OK) {
        pthread_mutex_destroy(&d->lock);
        free(d);
        return st;
    }
    if (d->max_shared_optin < shared_default) d->max_shared_optin = shared_default;
    dev->impl = d;
    dev->info = (enigma_device_info){
        .name = dev->name_storage,
        .backend = "cuda",
        .max_threads_per_threadgroup = max_threads < 1024 ? (uint32_t)max_threads : 1024,
        .max_threadgroup_memory = (uint64_t)d->max_shared_optin,
        .simd_width = 32,
        .compute_units = (uint32_t)sms,
        .memory_bytes = total,
    };
    return ENIGMA_OK;
}

/* ENIGMA_CUDA_ISOLATE=1: the device on the CUDA worker from the start (top of the file) */
enigma_status en_cuda_device_open(en_device *dev, en_buf *err) {
    const char *isolate = getenv("ENIGMA_CUDA_ISOLATE");
    if (!(isolate && strcmp(isolate, "1") == 0)) {
        const en_cuda_driver *cu = en_cuda_driver_load(err);
        return cu ? open_on(dev, cu, false, err) : ENIGMA_ERROR_UNAVAILABLE;
    }
    en_buf why = {0};
    const en_cuda_driver *cu = en_cuda_remote_driver(&why);
    enigma_status st = ENIGMA_ERROR_UNAVAILABLE;
    if (!cu) en_buf_printf(err, "ENIGMA_CUDA_ISOLATE=1, but %s", why.data ? why.data : "the CUDA worker cannot start");
    else st = open_on(dev, cu, true, err);
    if (st != ENIGMA_OK) en_cuda_remote_stop_if_idle(); /* no device holds the worker */
    en_buf_free(&why);
    return st;
}

void en_cuda_device_close(en_device *dev) {
    en_cuda_device *d = impl(dev);
    if (!d) return;
    const en_cuda_driver *cu = d->cu;
    if (!atomic_load(&d->lost) && cu->cuCtxSetCurrent(d->ctx) == CUDA_SUCCESS) {
        if (d->stream) {
            cu->cuStreamSynchronize(d->stream);
            for (int i = 0; i < EN_TIMING_SLOTS; i++) {
                if (d->slots[i].start) cu->cuEventDestroy(d->slots[i].start);
                if (d->slots[i].end) cu->cuEventDestroy(d->slots[i].end);
            }
            cu->cuStreamDestroy(d->stream);
        }
    }
    for (int i = 0; i < d->retains; i++) cu->cuDevicePrimaryCtxRelease(d->device);
    pthread_mutex_destroy(&d->lock);
    free(d);
    dev->impl = NULL;
}

/* ---- memory ----------------------------------------------------------------------------------- */
/* a buffer of an older context than `generation` (the caller's view of the device) is gone */
static enigma_status check_buffer(unsigned generation, const cuda_buffer *b, en_buf *err) {
    if (b->generation == generation) return ENIGMA_OK;
    en_buf_puts(err, "this buffer was lost when the CUDA context was reset after a kernel fault; "
                     "create it again");
    return ENIGMA_ERROR_RUNTIME;
}

enigma_status en_cuda_buffer_alloc(en_device *dev, size_t bytes, void **handle, en_buf *err) {
    en_cuda_device *d = impl(dev);
    cuda_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        en_buf_puts(err, "out of memory");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    cuda_session s;
    enigma_status st = enter(d, &s, err);
    if (st != ENIGMA_OK) {
        free(b);
        return st;
    }
    en_buf why = {0};
    int r = EN_CU(s.cu, &why, cuMemAlloc(&b->ptr, bytes ? bytes : 1));
    /* new buffers are zero-filled, as on the cpu backend; the memset is ordered on the
     * device's stream before any later copy or dispatch */
    if (r == 0) r = EN_CU(s.cu, &why, cuMemsetD8(b->ptr, 0, bytes));
    if (r != 0) {
        if (b->ptr && !is_sticky_fault(r)) s.cu->cuMemFree(b->ptr);
        free(b);
        st = call_failed(d, &s, r, why.data, err);
        en_buf_free(&why);
        return st;
    }
    b->size = bytes;
    b->generation = s.generation;
    b->shadow_ok = bytes <= EN_SHADOW_BYTES; /* calloc'ed: zeros, as the memset */
    *handle = b;
    return ENIGMA_OK;
}

/* The caller's device memory, used in place: an address in this process's primary context
 * (PyTorch, CuPy and the runtime API allocate there). A device run by the worker process
 * has another address space, so borrowing is refused there rather than passing an address
 * that means nothing to it. */
enigma_status en_cuda_buffer_borrow(en_device *dev, void *memory, size_t bytes, void **handle,
                                    en_buf *err) {
    en_cuda_device *d = impl(dev);
    cuda_session s;
    enigma_status st = enter(d, &s, err);
    if (st != ENIGMA_OK) return st;
    if (d->remote) {
        en_buf_puts(err, "this CUDA device runs in the worker process (ENIGMA_CUDA_ISOLATE=1, or "
                         "after a kernel fault), whose address space does not hold the caller's "
                         "device memory; copy the data into an enigma buffer instead");
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    cuda_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        en_buf_puts(err, "out of memory");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    b->ptr = (CUdeviceptr)(uintptr_t)memory;
    b->size = bytes;
    b->generation = s.generation;
    b->borrowed = true;
    *handle = b;
    return ENIGMA_OK;
}

void en_cuda_buffer_free(en_device *dev, void *handle) {
    en_cuda_device *d = impl(dev);
    cuda_buffer *b = handle;
    if (!b) return;
    /* memory of a context that was reset (or of a lost device) is already gone; such a
     * buffer is let go without entering the device, which could start a fresh worker */
    cuda_session s;
    if (!b->borrowed && b->generation == atomic_load(&d->generation) && enter(d, &s, NULL) == ENIGMA_OK &&
        b->generation == s.generation)
        s.cu->cuMemFree(b->ptr);
    free(b);
}

/* Copies are synchronous with respect to the host and ordered after queued dispatches:
 * cuMemcpy* on the legacy default stream waits for the device's (blocking) stream. A fault
 * of an earlier kernel surfaces here as well. */
enigma_status en_cuda_buffer_write(en_device *dev, void *handle, size_t offset, const void *src,
                                   size_t bytes, en_buf *err) {
    en_cuda_device *d = impl(dev);
    cuda_buffer *b = handle;
    cuda_session s;
    enigma_status st = enter(d, &s, err);
    if (st == ENIGMA_OK) st = check_buffer(s.generation, b, err);
    if (st != ENIGMA_OK || bytes == 0) return st;
    en_buf why = {0};
    int r = EN_CU(s.cu, &why, cuMemcpyHtoD(b->ptr + offset, src, bytes));
    if (r != 0) st = call_failed(d, &s, r, why.data, err);
    else if (b->size <= EN_SHADOW_BYTES && offset + bytes <= EN_SHADOW_BYTES) {
        memcpy(b->shadow + offset, src, bytes);
        if (offset == 0 && bytes >= b->size && !b->borrowed) b->shadow_ok = true;
    }
    en_buf_free(&why);
    return st;
}

enigma_status en_cuda_buffer_read(en_device *dev, void *handle, size_t offset, void *dst,
                                  size_t bytes, en_buf *err) {
    en_cuda_device *d = impl(dev);
    cuda_buffer *b = handle;
    cuda_session s;
    enigma_status st = enter(d, &s, err);
    if (st == ENIGMA_OK) st = check_buffer(s.generation, b, err);
    if (st != ENIGMA_OK || bytes == 0) return st;
    en_buf why = {0};
    int r = EN_CU(s.cu, &why, cuMemcpyDtoH(dst, b->ptr + offset, bytes));
    if (r != 0) st = call_failed(d, &s, r, why.data, err);
    en_buf_free(&why);
    return st;
}

/* ---- programs ---------------------------------------------------------------------------------- */
/* the dynamic shared memory of kernel f's quad entry point (wgmma_merge.c), 0 if it has
 * none: the plan again, as emit.c made it */
static uint32_t quad_shared_bytes(const ir_func *f) {
    en_arena arena;
    en_arena_init(&arena);
    en_wg_plan plan;
    uint32_t bytes = en_cuda_wgmma_plan(f, &arena, &plan) && plan.merge ? en_cuda_quad_shared_bytes(&plan) : 0;
    en_arena_free(&arena);
    return bytes;
}

/* loads (or reloads, after a reset) the module and looks up every kernel (lock held or
 * program not yet shared) */
static enigma_status load_module(en_cuda_device *d, en_program *p, en_buf *err) {
    const en_cuda_driver *cu = d->cu;
    p->module = NULL;
    if (EN_CU(cu, err, cuModuleLoadData(&p->module, p->cubin))) return ENIGMA_ERROR_RUNTIME;
    for (int i = 0; i < p->kernel_count; i++) {
        cuda_kernel *k = &p->kernels[i];
        k->static_shared = 0;
        k->max_threads = 1024;
        for (int v = 0; v < 4; v++) {
            char symbol[512];
            snprintf(symbol, sizeof symbol, "%s%s", en_cuda_kernel_symbol(k->f), en_cuda_entry_suffix(v));
            int shared = 0, threads = 0;
            k->fn[v] = NULL;
            /* the warpgroup's and the quad's entry points only where emit.c made them and NVRTC
             * built for sm_90a */
            if (v >= 2 && cu->cuModuleGetFunction(&k->fn[v], p->module, symbol) != CUDA_SUCCESS) {
                k->fn[v] = NULL;
                continue;
            }
            /* its threadgroups are few registers and ~20 KB of shared memory each: all of the
             * SM's shared memory for them (a hint; the driver may keep more L1), so that as
             * many fit as the registers allow (__launch_bounds__(128, 7), emit.c) */
            if (v >= 2) (void)cu->cuFuncSetAttribute(k->fn[v], CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100);
            /* a quad's block is four threadgroups: its memory and size are not a threadgroup's;
             * its staging is dynamic shared memory, sized by the plan emit.c made */
            if (v == 3) {
                k->quad_shared = quad_shared_bytes(k->f);
                if (!k->quad_shared) k->fn[v] = NULL;
                continue;
            }
            if ((v < 2 && EN_CU(cu, err, cuModuleGetFunction(&k->fn[v], p->module, symbol))) ||
                EN_CU(cu, err, cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn[v])) ||
                EN_CU(cu, err, cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn[v])))
                return ENIGMA_ERROR_RUNTIME;
            if (shared > k->static_shared) k->static_shared = shared;
            if (threads < k->max_threads) k->max_threads = threads;
        }
        for (int v = 0; v < 4; v++) k->dynamic_limit[v] = 48 * 1024 - k->static_shared;
    }
    p->generation = d->generation;
    return ENIGMA_OK;
}

enigma_status en_cuda_build(en_device *dev, const ir_module *m, const en_build_options *o,
                            en_program **out, en_buf *err) {
    en_cuda_device *d = impl(dev);
    *out = NULL;
    if (o && o->checked) {
        en_buf_puts(err, "checked mode runs on the cpu backend only (open the device with \"cpu\")");
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    cuda_session s;
    enigma_status st = enter(d, &s, err); /* no NVRTC work for a device that cannot load it */
    if (st != ENIGMA_OK) return st;
    en_cubin cubin = {0};
    st = en_nvrtc_compile(m, d->cc_major, d->cc_minor, o ? o->backend_flags : NULL, o && o->no_cache, &cubin, err);
    if (st != ENIGMA_OK) return st;

    en_program *p = calloc(1, sizeof *p);
    int n = ir_module_kernel_count(m);
    if (p) p->kernels = calloc((size_t)(n ? n : 1), sizeof *p->kernels);
    if (!p || !p->kernels) {
        free(p);
        en_cubin_free(&cubin);
        en_buf_puts(err, "out of memory");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    p->cubin = cubin.data;
    p->cubin_size = cubin.size;
    for (int i = 0; i < m->funcs.count; i++) {
        const ir_func *f = m->funcs.items[i];
        if (!f->is_kernel) continue;
        cuda_kernel *k = &p->kernels[p->kernel_count++];
        k->f = f;
        k->layout = en_cuda_shared_layout_of(f);
        k->whole_warps = en_cuda_apple_lanes(m);
    }
    pthread_mutex_lock(&d->lock);
    st = enter_locked(d, &s, err);
    if (st == ENIGMA_OK) st = load_module(d, p, err);
    pthread_mutex_unlock(&d->lock);
    if (st != ENIGMA_OK) {
        en_cuda_program_free(dev, p);
        return st;
    }
    *out = p;
    return ENIGMA_OK;
}

void en_cuda_program_free(en_device *dev, en_program *p) {
    if (!p) return;
    en_cuda_device *d = impl(dev);
    cuda_session s;
    if (p->module && enter(d, &s, NULL) == ENIGMA_OK && p->generation == s.generation)
        s.cu->cuModuleUnload(p->module);
    free(p->cubin);
    free(p->kernels);
    free(p);
}

enigma_status en_cuda_kernel_limits(en_device *dev, en_program *p, int kernel_index,
                                    en_kernel_limits *out, en_buf *err) {
    (void)dev;
    if (kernel_index < 0 || kernel_index >= p->kernel_count) {
        en_buf_printf(err, "kernel index %d is out of range (the program has %d)", kernel_index, p->kernel_count);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    const cuda_kernel *k = &p->kernels[kernel_index];
    uint32_t limit = 1024;
    if (k->f->max_total_threads_per_threadgroup && k->f->max_total_threads_per_threadgroup < limit)
        limit = k->f->max_total_threads_per_threadgroup;
    if (k->max_threads > 0 && (uint32_t)k->max_threads < limit) limit = (uint32_t)k->max_threads;
    out->max_total_threads_per_threadgroup = limit;
    out->static_threadgroup_memory = k->layout.static_bytes;
    return ENIGMA_OK;
}

/* ---- dispatch -------------------------------------------------------------------------------------- */
/* the dispatch parameters every kernel takes first (prelude.cuh: en_dispatch) */
typedef struct dispatch_params {
    uint32_t grid[3];
    uint32_t group[3];
    uint32_t by_threads;
} dispatch_params;

static timing_slot *slot_for(en_cuda_device *d, const en_launch *l) {
    for (int i = 0; i < EN_TIMING_SLOTS; i++)
        if (d->slots[i].launch == l && d->slots[i].generation == d->generation) return &d->slots[i];
    return NULL;
}

enigma_status en_cuda_dispatch(en_device *dev, en_program *p, en_launch *l, en_buf *err) {
    en_cuda_device *d = impl(dev);
    cuda_session s;
    if (l->kernel_index < 0 || l->kernel_index >= p->kernel_count) {
        en_buf_printf(err, "kernel index %d is out of range", l->kernel_index);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    cuda_kernel *k = &p->kernels[l->kernel_index];
    const ir_func *f = k->f;
    l->duration_ns = 0;
    if (atomic_load(&d->lost)) return enter(d, &s, err); /* says why, before any buffer's story */
    if (l->timeout_ns && !d->remote) {
        /* a kernel in this process's context cannot be stopped short of ending the process */
        en_buf_puts(err, "a dispatch time limit on the cuda backend needs the device in the CUDA worker "
                         "process, which can be ended with the kernel: set ENIGMA_CUDA_ISOLATE=1");
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    atomic_store(&d->cancel_target, NULL);

    /* parameters, in the order emit.c declares them */
    /* a dispatch by threads whose grid is a whole number of threadgroups has no edge
     * groups: telling the kernel so spares every thread the edge arithmetic */
    bool edges = l->by_threads && (l->grid[0] % l->group_size[0] || l->grid[1] % l->group_size[1] ||
                                   l->grid[2] % l->group_size[2]);
    dispatch_params dp = {{l->grid[0], l->grid[1], l->grid[2]},
                          {l->group_size[0], l->group_size[1], l->group_size[2]},
                          edges};
    /* the fast entry point: 1-D threadgroups and every small constant by value */
    int variant = l->group_size[1] == 1 && l->group_size[2] == 1;
    CUdeviceptr ptrs[EN_MAX_KERNEL_ARGS];
    uint32_t offsets[EN_MAX_KERNEL_ARGS];
    _Alignas(16) unsigned char values[EN_MAX_KERNEL_ARGS][EN_CUDA_BY_VALUE_MAX];
    void *args[EN_MAX_KERNEL_ARGS + 1];
    int nargs = 0;
    args[nargs++] = &dp;
    uint64_t shared = k->layout.static_in_dynamic ? k->layout.static_bytes : 0;
    unsigned generation = atomic_load(&d->generation); /* once: what the bindings are checked against */
    for (int i = 0; i < f->param_count && nargs + 1 < EN_MAX_KERNEL_ARGS; i++) {
        const ir_var *v = f->params[i];
        if (v->param_kind == IR_PARAM_BUFFER) {
            const en_binding *b = &l->buffers[v->binding];
            cuda_buffer *cb = b->handle;
            if (cb && cb->generation != generation) {
                en_buf_printf(err, "[[buffer(%d)]] ('%s'): ", v->binding, v->name);
                return check_buffer(generation, cb, err);
            }
            /* a kernel may write what it sees outside the constant address space */
            if (cb && v->type->space != IR_SPACE_CONSTANT) cb->shadow_ok = false;
            ptrs[nargs] = cb ? cb->ptr + b->offset : 0;
            args[nargs] = &ptrs[nargs];
            nargs++;
            if (en_cuda_param_by_value(v)) {
                size_t size = v->type->elem->size;
                memset(values[nargs], 0, sizeof values[nargs]);
                if (cb && cb->shadow_ok && b->offset + size <= cb->size) {
                    memcpy(values[nargs], cb->shadow + b->offset, size);
                    ptrs[nargs - 1] = 0; /* the kernel takes the value */
                } else {
                    variant = 0; /* only the general entry point reads through the pointer */
                }
                args[nargs] = values[nargs];
                nargs++;
            }
        } else if (v->param_kind == IR_PARAM_THREADGROUP) {
            shared = (shared + 15) / 16 * 16;
            offsets[nargs] = (uint32_t)shared;
            args[nargs] = &offsets[nargs];
            nargs++;
            shared += l->threadgroup_memory[v->binding];
        }
    }
    uint64_t limit = (uint64_t)d->max_shared_optin - (uint64_t)k->static_shared;
    if (shared > limit) {
        en_buf_printf(err, "threadgroup memory of %llu bytes (with %d bytes of threadgroup variables) "
                           "exceeds this GPU's limit of %d bytes per threadgroup",
                      (unsigned long long)shared, k->static_shared, d->max_shared_optin);
        return ENIGMA_ERROR_LIMIT;
    }
    uint32_t block = l->group_size[0] * l->group_size[1] * l->group_size[2];
    if (k->whole_warps) block = (block + 31u) / 32u * 32u;
    for (int i = 0; i < 3; i++)
        if (l->groups[i] > (uint32_t)d->max_grid[i]) {
            en_buf_printf(err, "%u threadgroups along %c exceed this GPU's limit of %d", l->groups[i],
                          "xyz"[i], d->max_grid[i]);
            return ENIGMA_ERROR_LIMIT;
        }

    pthread_mutex_lock(&d->lock);
    enigma_status st = enter_locked(d, &s, err);
    const en_cuda_driver *cu = s.cu;
    if (st == ENIGMA_OK && p->generation != s.generation) st = load_module(d, p, err);
    /* the warpgroup's GEMM (internal.h): where every threadgroup is one warpgroup, 128 threads
     * in a row and no smaller group at an edge */
    if (st == ENIGMA_OK && k->fn[2] && l->group_size[0] == 128 && l->group_size[1] == 1 && l->group_size[2] == 1 &&
        !edges && !k->whole_warps)
        variant = 2;
    /* four threadgroups a block where they share their staging (internal.h,
     * EN_CUDA_QUAD_SUFFIX): an even number of them along x and y */
    uint32_t grid[3] = {l->groups[0], l->groups[1], l->groups[2]};
    if (variant == 2 && k->fn[3] && grid[0] % 2 == 0 && grid[1] % 2 == 0 && en_cuda_wgmma_merge_enabled()) {
        variant = 3;
        grid[0] /= 2;
        grid[1] /= 2;
        block = 512;
        shared = k->quad_shared;
    }
    CUfunction fn = k->fn[variant];
    if (st == ENIGMA_OK && (int64_t)shared > k->dynamic_limit[variant]) {
        /* beyond the default 48 KiB a function must opt in; set once, kept for later */
        if (EN_CU(cu, err, cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared)))
            st = ENIGMA_ERROR_RUNTIME;
        else
            k->dynamic_limit[variant] = (int)shared;
    }
    timing_slot *slot = NULL;
    if (st == ENIGMA_OK && d->timing) {
        slot = slot_for(d, l);
        if (!slot) {
            slot = &d->slots[d->next_slot];
            d->next_slot = (d->next_slot + 1) % EN_TIMING_SLOTS;
            if (slot->generation != d->generation || !slot->start) {
                slot->start = slot->end = NULL;
                slot->generation = d->generation;
                if (EN_CU(cu, NULL, cuEventCreate(&slot->start, CU_EVENT_DEFAULT)) ||
                    EN_CU(cu, NULL, cuEventCreate(&slot->end, CU_EVENT_DEFAULT)))
                    slot->start = slot->end = NULL;
            }
            slot->launch = slot->start ? l : NULL;
        }
        if (!slot->start || cu->cuEventRecord(slot->start, d->stream) != CUDA_SUCCESS) slot = NULL;
    }
    if (st == ENIGMA_OK) {
        en_buf why = {0};
        int r = EN_CU(cu, &why, cuLaunchKernel(fn, grid[0], grid[1], grid[2], block, 1, 1,
                                                (unsigned)shared, d->stream, args, NULL));
        if (r == 0) {
            d->last_kernel = f->name;
            if (slot) cu->cuEventRecord(slot->end, d->stream);
        } else if (is_sticky_fault(r)) {
            /* an earlier kernel faulted and the launch found the context dead */
            st = fault(d, d->last_kernel ? d->last_kernel : f->name, why.data, s.generation, err);
        } else {
            en_buf_puts(err, why.data);
            st = r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ? ENIGMA_ERROR_LIMIT : ENIGMA_ERROR_RUNTIME;
        }
        en_buf_free(&why);
    }
    pthread_mutex_unlock(&d->lock);
    return st;
}

/* A device on the worker waits by polling its stream, so that a dispatch past its time
 * limit or cancelled can be stopped: the worker process running the kernel is abandoned and
 * replaced (ending the process is the only way to end a kernel on a GPU), as after a fault.
 * Returns the stream's result; *stopped is ENIGMA_ERROR_TIMEOUT or _CANCELLED when it was
 * stopped first. */
static int poll_stream(en_cuda_device *d, const cuda_session *s, const en_launch *l, en_buf *why,
                       enigma_status *stopped) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long pause_ns = 10000; /* short first: most kernels end within a few pauses */
    for (;;) {
        int r = s->cu->cuStreamQuery(s->stream);
        if (r != CUDA_ERROR_NOT_READY) return r ? EN_CU(s->cu, why, cuStreamQuery(s->stream)) : 0;
        if (atomic_load(&d->cancel_target) == l) {
            *stopped = ENIGMA_ERROR_CANCELLED;
            return 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t ran = (uint64_t)(now.tv_sec - start.tv_sec) * 1000000000u + (uint64_t)now.tv_nsec -
                       (uint64_t)start.tv_nsec;
        if (l->timeout_ns && ran >= l->timeout_ns) {
            *stopped = ENIGMA_ERROR_TIMEOUT;
            return 0;
        }
        struct timespec pause = {0, pause_ns};
        nanosleep(&pause, NULL);
        if (pause_ns < 1000000) pause_ns *= 2;
    }
}

bool en_cuda_cancel(en_device *dev, const en_launch *launch) {
    en_cuda_device *d = impl(dev);
    if (!d->remote) return false; /* a kernel in this process cannot be stopped */
    atomic_store(&d->cancel_target, launch);
    return true;
}

/* ends the worker running a stopped dispatch and starts a fresh one (lock held) */
static enigma_status stop_in_worker(en_cuda_device *d, const en_launch *l, enigma_status why, en_buf *err) {
    if (why == ENIGMA_ERROR_TIMEOUT)
        en_buf_printf(err, "the dispatch ran past its time limit of %.3f s and was stopped", (double)l->timeout_ns / 1e9);
    else
        en_buf_puts(err, "the dispatch was cancelled");
    en_cuda_remote_abandon();
    /* the fresh worker starts with the device's next call, not here: starting one takes
     * longer than a time limit should be overrun by */
    d->abandoned = true;
    atomic_fetch_add(&d->generation, 1); /* buffers of the ended worker are lost from now */
    en_buf_puts(err, "; the CUDA worker process running it was ended with the kernel: buffers created "
                     "before this are lost, and a fresh worker process starts with the next call");
    return why;
}

enigma_status en_cuda_wait(en_device *dev, en_launch *l, en_buf *err) {
    en_cuda_device *d = impl(dev);
    cuda_session s;
    enigma_status st = enter(d, &s, err);
    if (st != ENIGMA_OK) return st;
    const en_cuda_driver *cu = s.cu;
    en_buf why = {0};
    /* with timing, wait for this launch's end event (later work may keep running); without,
     * for the whole stream (one call, and nothing was recorded per launch to wait on) */
    CUevent end = NULL;
    if (d->timing) {
        pthread_mutex_lock(&d->lock);
        timing_slot *mine = slot_for(d, l);
        end = mine ? mine->end : NULL;
        pthread_mutex_unlock(&d->lock);
    }
    enigma_status stopped = ENIGMA_OK;
    int r = d->remote ? poll_stream(d, &s, l, &why, &stopped)
            : end     ? EN_CU(cu, &why, cuEventSynchronize(end))
                      : EN_CU(cu, &why, cuStreamSynchronize(s.stream));
    if (stopped != ENIGMA_OK) {
        pthread_mutex_lock(&d->lock);
        st = stop_in_worker(d, l, stopped, err);
        pthread_mutex_unlock(&d->lock);
    } else if (r != 0) {
        pthread_mutex_lock(&d->lock);
        st = is_sticky_fault(r) ? fault(d, l->kernel ? l->kernel->name : "?", why.data, s.generation, err)
                                : (en_buf_puts(err, why.data), ENIGMA_ERROR_RUNTIME);
        pthread_mutex_unlock(&d->lock);
    } else if (d->timing) {
        pthread_mutex_lock(&d->lock);
        timing_slot *slot = slot_for(d, l);
        float ms = 0;
        if (slot && cu->cuEventElapsedTime(&ms, slot->start, slot->end) == CUDA_SUCCESS)
            l->duration_ns = (uint64_t)((double)ms * 1e6);
        if (slot) slot->launch = NULL;
        pthread_mutex_unlock(&d->lock);
    }
    en_buf_free(&why);
    return st;
}
