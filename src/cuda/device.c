/* device.c — the cuda backend as the runtime sees it: the en_backend vtable, filled in one
 * place. The work is in emit.c (IR to CUDA C), nvrtc.c (CUDA C to cached cubin) and
 * driver.c (context, memory, modules, launches; after a kernel fault, through remote.c on
 * a worker process); libcuda and libnvrtc are loaded on first
 * use by dl.c, so this backend links on machines without CUDA and reports itself
 * unavailable there ("libcuda.so.1 not found ...").
 *
 * Environment:
 *   ENIGMA_CUDA_DEVICE=N    which GPU (default 0)
 *   ENIGMA_CUDA_ARCH=sm_XY  the target of compile_offline (no device); default sm_90
 *   ENIGMA_CUDA_TIMING=1    per-dispatch timing events (opt-in); without, duration_ns is the host's
 *   ENIGMA_CUDA_ISOLATE=1   every device on the CUDA worker process from the start (driver.c)
 *   ENIGMA_CUDA_WORKER      the path of enigma-cuda-worker (remote.c says where it looks otherwise)
 *   ENIGMA_LIBCUDA, ENIGMA_LIBNVRTC   paths of the libraries, instead of the search
 *   ENIGMA_CACHE_DIR        the cubin cache (src/base/cache.h) */
#include <stdio.h>

#include "internal.h"

static enigma_status cuda_emit(const ir_module *m, const en_build_options *o, en_buf *out,
                               en_buf *err) {
    (void)o;
    return en_cuda_emit(m, out, err);
}

/* NVRTC for the default target, no device needed: what `enigma compile --backend cuda` runs */
static enigma_status cuda_compile_offline(const ir_module *m, const en_build_options *o,
                                          en_buf *out, en_buf *err) {
    en_cubin cubin = {0};
    int major, minor;
    en_cuda_offline_arch(&major, &minor);
    enigma_status st = en_nvrtc_compile(m, major, minor, o ? o->backend_flags : NULL, o && o->no_cache, &cubin, err);
    if (st == ENIGMA_OK) {
        en_buf_printf(out, "cuda: %d kernel%s compiled by NVRTC for %s: %zu bytes of cubin, ",
                      ir_module_kernel_count(m), ir_module_kernel_count(m) == 1 ? "" : "s",
                      cubin.arch, cubin.size);
        if (cubin.from_cache) en_buf_printf(out, "from the cache in %.1f ms\n", cubin.load_ms);
        else en_buf_printf(out, "compiled in %.1f ms\n", cubin.compile_ms);
    }
    en_cubin_free(&cubin);
    return st;
}

/* A kernel that calls thread_elements() numbers the lanes of its whole program as Apple
 * does (en_cuda_apple_lanes) and launches whole warps: built apart from the others */
static int cuda_batch_group(const ir_module *m, const ir_func *kernel) {
    ir_func *alone = (ir_func *)kernel;
    ir_module of_kernel = *m;
    of_kernel.funcs.items = &alone;
    of_kernel.funcs.count = of_kernel.funcs.cap = 1;
    return en_cuda_apple_lanes(&of_kernel) ? 1 : 0;
}

const en_backend en_cuda_backend = {
    .name = "cuda",
    .open = en_cuda_device_open,
    .close = en_cuda_device_close,
    .buffer_alloc = en_cuda_buffer_alloc,
    .buffer_free = en_cuda_buffer_free,
    .buffer_write = en_cuda_buffer_write,
    .buffer_read = en_cuda_buffer_read,
    .buffer_host = NULL, /* device memory has no host address: the runtime maps a copy */
    .buffer_borrow = en_cuda_buffer_borrow,
    .emit = cuda_emit,
    .build = en_cuda_build,
    .program_free = en_cuda_program_free,
    .batch_group = cuda_batch_group,
    .kernel_limits = en_cuda_kernel_limits,
    .dispatch = en_cuda_dispatch,
    .wait = en_cuda_wait,
    .cancel = en_cuda_cancel,
    .compile_offline = cuda_compile_offline,
};
