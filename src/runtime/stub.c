/* stub.c — STUB: how the runtime reaches the cuda backend until src/cuda/device.c defines
 * en_cuda_backend itself (it names its vtable en_cuda_backend_impl for now).
 *
 * src/cuda may rename its vtable to en_cuda_backend at any moment, with no coordination:
 * en_cuda_backend here is weak, so the strong definition in src/cuda wins without a
 * duplicate-symbol error, and en_cuda_backend_impl is only a weak reference, so its
 * disappearance is no undefined-symbol error either. Until then each entry forwards to
 * en_cuda_backend_impl where the linker has it: always in libenigma.so; in static links
 * (the CLI) only once something references src/cuda/device.c strongly, which the rename
 * does. This file goes once src/cuda defines en_cuda_backend. */
#include "backend.h"

extern const en_backend en_cuda_backend_impl __attribute__((weak, visibility("hidden")));

#define IMPL (&en_cuda_backend_impl)
#define MISSING(err) (en_buf_puts(err, "it is not built into this enigma"), ENIGMA_ERROR_UNAVAILABLE)

static enigma_status fwd_open(en_device *dev, en_buf *err) {
    return IMPL && IMPL->open ? IMPL->open(dev, err) : MISSING(err);
}
static void fwd_close(en_device *dev) {
    if (IMPL && IMPL->close) IMPL->close(dev);
}
static enigma_status fwd_buffer_alloc(en_device *dev, size_t bytes, void **handle, en_buf *err) {
    return IMPL->buffer_alloc(dev, bytes, handle, err); /* only reached after open succeeded */
}
static void fwd_buffer_free(en_device *dev, void *handle) { IMPL->buffer_free(dev, handle); }
static enigma_status fwd_buffer_write(en_device *dev, void *handle, size_t offset, const void *src, size_t bytes,
                                      en_buf *err) {
    return IMPL->buffer_write(dev, handle, offset, src, bytes, err);
}
static enigma_status fwd_buffer_read(en_device *dev, void *handle, size_t offset, void *dst, size_t bytes,
                                     en_buf *err) {
    return IMPL->buffer_read(dev, handle, offset, dst, bytes, err);
}
static void *fwd_buffer_host(en_device *dev, void *handle) {
    return IMPL->buffer_host ? IMPL->buffer_host(dev, handle) : NULL;
}
static enigma_status fwd_emit(const ir_module *m, const en_build_options *o, en_buf *out, en_buf *err) {
    return IMPL && IMPL->emit ? IMPL->emit(m, o, out, err) : MISSING(err);
}
static enigma_status fwd_build(en_device *dev, const ir_module *m, const en_build_options *o, en_program **out,
                               en_buf *err) {
    return IMPL->build(dev, m, o, out, err);
}
static void fwd_program_free(en_device *dev, en_program *p) { IMPL->program_free(dev, p); }
static enigma_status fwd_kernel_limits(en_device *dev, en_program *p, int kernel_index, en_kernel_limits *out,
                                       en_buf *err) {
    return IMPL->kernel_limits ? IMPL->kernel_limits(dev, p, kernel_index, out, err) : ENIGMA_OK;
}
static enigma_status fwd_dispatch(en_device *dev, en_program *p, en_launch *launch, en_buf *err) {
    return IMPL->dispatch(dev, p, launch, err);
}
static enigma_status fwd_wait(en_device *dev, en_launch *launch, en_buf *err) { return IMPL->wait(dev, launch, err); }
static enigma_status fwd_compile_offline(const ir_module *m, const en_build_options *o, en_buf *out, en_buf *err) {
    return IMPL && IMPL->compile_offline ? IMPL->compile_offline(m, o, out, err) : MISSING(err);
}

__attribute__((weak)) const en_backend en_cuda_backend = {
    .name = "cuda",
    .open = fwd_open,
    .close = fwd_close,
    .buffer_alloc = fwd_buffer_alloc,
    .buffer_free = fwd_buffer_free,
    .buffer_write = fwd_buffer_write,
    .buffer_read = fwd_buffer_read,
    .buffer_host = fwd_buffer_host,
    .emit = fwd_emit,
    .build = fwd_build,
    .program_free = fwd_program_free,
    .kernel_limits = fwd_kernel_limits,
    .dispatch = fwd_dispatch,
    .wait = fwd_wait,
    .compile_offline = fwd_compile_offline,
};
