/* device.c — the cpu backend's en_backend: device info, host buffers, build, dispatch.
 * The one place the vtable is filled (STYLE.md: backends as a struct of function
 * pointers filled in one place). */
#include "cpu.h"

#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_cpu_model(char *out, size_t size) {
    snprintf(out, size, "unknown processor");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char text[512];
    while (fgets(text, sizeof text, f)) {
        if (strncmp(text, "model name", 10) != 0) continue;
        char *colon = strchr(text, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        size_t n = strcspn(colon, "\n");
        snprintf(out, size, "%.*s", (int)n, colon);
        break;
    }
    fclose(f);
}

static int worker_count(void) {
    const char *env = getenv("ENIGMA_NUM_THREADS");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == 0 && n >= 1 && n <= 1024) return (int)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)(n > 1024 ? 1024 : n) : 1;
}

static enigma_status cpu_open(en_device *dev, en_buf *err) {
    cpu_device *cd = calloc(1, sizeof *cd);
    if (!cd) {
        en_buf_puts(err, "out of memory");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    cd->worker_count = worker_count();
    pthread_mutex_init(&cd->lock, NULL);
    pthread_mutex_init(&cd->running_lock, NULL);
    read_cpu_model(cd->model, sizeof cd->model);
    snprintf(dev->name_storage, sizeof dev->name_storage, "cpu: %s", cd->model);
    dev->impl = cd;
    dev->info.name = dev->name_storage;
    dev->info.backend = "cpu";
    dev->info.max_threads_per_threadgroup = CPU_MAX_THREADS;
    dev->info.max_threadgroup_memory = CPU_MAX_TG_MEMORY;
    dev->info.simd_width = 32;
    dev->info.compute_units = (uint32_t)cd->worker_count;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    dev->info.memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    return ENIGMA_OK;
}

static void cpu_close(en_device *dev) {
    cpu_device *cd = dev->impl;
    if (!cd) return;
    cpu_pool_destroy(cd->pool);
    pthread_mutex_destroy(&cd->lock);
    pthread_mutex_destroy(&cd->running_lock);
    free(cd);
    dev->impl = NULL;
}

/* Buffers live in their own mapping with an inaccessible page on each side, the bytes
 * placed so that the first byte past the buffer (rounded up to 64) is the guard page: a
 * kernel that runs off the end of a buffer faults there, and the fault is contained
 * (fault.c) instead of corrupting the host's heap. Fresh mappings are zero-filled. A buffer
 * larger than the machine's memory is refused here, before overcommit could let it be
 * created and the process be killed when it is touched. */
static enigma_status cpu_buffer_alloc(en_device *dev, size_t bytes, void **handle, en_buf *err) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (dev->info.memory_bytes && bytes > dev->info.memory_bytes) {
        en_buf_printf(err, "out of memory: a buffer of %zu bytes is larger than this machine's memory (%llu bytes)",
                      bytes, (unsigned long long)dev->info.memory_bytes);
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    size_t rounded = (bytes + 63) / 64 * 64;
    size_t span = (rounded + page - 1) / page * page;
    cpu_buffer *b = calloc(1, sizeof *b);
    char *base = b ? mmap(NULL, span + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                   : MAP_FAILED;
    if (base != MAP_FAILED && mprotect(base + page, span, PROT_READ | PROT_WRITE) != 0) {
        munmap(base, span + 2 * page);
        base = MAP_FAILED;
    }
    if (base == MAP_FAILED) {
        free(b);
        en_buf_printf(err, "out of memory allocating a buffer of %zu bytes", bytes);
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
#ifdef MADV_HUGEPAGE
    /* large buffers in 2 MiB pages where the kernel allows it (THP in madvise mode):
     * streaming kernels otherwise take a TLB miss every 4 KiB */
    if (span >= (8u << 20)) (void)madvise(base + page, span, MADV_HUGEPAGE);
#endif
    b->mapping = base;
    b->mapping_size = span + 2 * page;
    b->data = base + page + (span - rounded);
    b->size = bytes;
    *handle = b;
    return ENIGMA_OK;
}

static enigma_status cpu_buffer_borrow(en_device *dev, void *memory, size_t bytes, void **handle,
                                       en_buf *err) {
    (void)dev;
    cpu_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        en_buf_puts(err, "out of memory");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    b->data = memory;
    b->size = bytes;
    b->borrowed = true;
    *handle = b;
    return ENIGMA_OK;
}

static void cpu_buffer_free(en_device *dev, void *handle) {
    (void)dev;
    cpu_buffer *b = handle;
    if (!b) return;
    if (b->mapping) munmap(b->mapping, b->mapping_size);
    free(b);
}

static enigma_status cpu_buffer_write(en_device *dev, void *handle, size_t offset, const void *src,
                                      size_t bytes, en_buf *err) {
    (void)dev;
    cpu_buffer *b = handle;
    if (offset > b->size || bytes > b->size - offset) {
        en_buf_printf(err, "write of %zu bytes at offset %zu exceeds the buffer's %zu bytes", bytes, offset, b->size);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    if (bytes) memcpy((char *)b->data + offset, src, bytes);
    return ENIGMA_OK;
}

static enigma_status cpu_buffer_read(en_device *dev, void *handle, size_t offset, void *dst,
                                     size_t bytes, en_buf *err) {
    (void)dev;
    cpu_buffer *b = handle;
    if (offset > b->size || bytes > b->size - offset) {
        en_buf_printf(err, "read of %zu bytes at offset %zu exceeds the buffer's %zu bytes", bytes, offset, b->size);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    if (bytes) memcpy(dst, (char *)b->data + offset, bytes);
    return ENIGMA_OK;
}

static void *cpu_buffer_host(en_device *dev, void *handle) {
    (void)dev;
    return ((cpu_buffer *)handle)->data;
}

static enigma_status cpu_emit(const ir_module *m, const en_build_options *o, en_buf *out, en_buf *err) {
    return cpu_emit_module(m, o, out, err);
}

static enigma_status cpu_build(en_device *dev, const ir_module *m, const en_build_options *o,
                               en_program **out, en_buf *err) {
    (void)dev;
    return cpu_jit_build(m, o, out, err);
}

static void cpu_program_free(en_device *dev, en_program *p) {
    (void)dev;
    cpu_jit_free(p);
}

static enigma_status cpu_kernel_limits(en_device *dev, en_program *p, int kernel_index,
                                       en_kernel_limits *out, en_buf *err) {
    (void)dev;
    if (kernel_index < 0 || kernel_index >= p->kernel_count) {
        en_buf_printf(err, "kernel index %d out of range", kernel_index);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    out->max_total_threads_per_threadgroup = p->kernels[kernel_index].max_threads;
    out->static_threadgroup_memory = p->kernels[kernel_index].tg_static_bytes;
    return ENIGMA_OK;
}

static enigma_status cpu_dispatch(en_device *dev, en_program *p, en_launch *launch, en_buf *err) {
    /* runs to completion here; wait then has nothing left to do */
    return cpu_exec_dispatch(dev->impl, p, launch, err);
}

static bool cpu_cancel(en_device *dev, const en_launch *launch) { return cpu_exec_cancel(dev->impl, launch); }

static enigma_status cpu_wait(en_device *dev, en_launch *launch, en_buf *err) {
    (void)dev;
    (void)launch;
    (void)err;
    return ENIGMA_OK;
}

const en_backend en_cpu_backend_impl = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .buffer_alloc = cpu_buffer_alloc,
    .buffer_free = cpu_buffer_free,
    .buffer_write = cpu_buffer_write,
    .buffer_read = cpu_buffer_read,
    .buffer_host = cpu_buffer_host,
    .buffer_borrow = cpu_buffer_borrow,
    .emit = cpu_emit,
    .build = cpu_build,
    .program_free = cpu_program_free,
    .kernel_limits = cpu_kernel_limits,
    .dispatch = cpu_dispatch,
    .wait = cpu_wait,
    .cancel = cpu_cancel,
};

/* The runtime reaches the backend as en_cpu_backend (src/runtime/backend.h); the tests
 * name it en_cpu_backend_impl. One object, two names. */
extern const en_backend en_cpu_backend __attribute__((alias("en_cpu_backend_impl")));
