/* device.c — opening a backend's device: "cpu", "cuda" or "auto".
 *
 * "auto" prefers cuda and falls back to cpu when cuda cannot open (no driver, no GPU),
 * so one program runs everywhere. A backend that is not built in (its vtable has no
 * open) is reported as unavailable, never called. */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static enigma_status open_backend(const en_backend *b, enigma_device **out) {
    if (!b->open)
        return en_fail(ENIGMA_ERROR_UNAVAILABLE, "%s backend unavailable: it is not built into this enigma",
                       b->name);
    enigma_device *dev = calloc(1, sizeof *dev);
    if (!dev) return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "out of memory opening the %s device", b->name);
    atomic_init(&dev->refs, 1);
    dev->core.backend = b;
    en_buf err = {0};
    enigma_status st = b->open(&dev->core, &err);
    if (st != ENIGMA_OK) {
        en_buf prefix = {0};
        en_buf_printf(&prefix, "%s backend unavailable: ", b->name);
        en_fail_buf(st == ENIGMA_ERROR_OUT_OF_MEMORY ? st : ENIGMA_ERROR_UNAVAILABLE,
                    prefix.data ? prefix.data : "", &err);
        en_buf_free(&prefix);
        en_buf_free(&err);
        free(dev);
        return st == ENIGMA_ERROR_OUT_OF_MEMORY ? st : ENIGMA_ERROR_UNAVAILABLE;
    }
    en_buf_free(&err);
    enigma_device_info *info = &dev->core.info;
    if (!info->backend) info->backend = b->name;
    if (!info->name) info->name = b->name;
    if (!info->simd_width) info->simd_width = 32;
    if (!info->max_threads_per_threadgroup) info->max_threads_per_threadgroup = 1024;
    *out = dev;
    return ENIGMA_OK;
}

const en_backend *en_backend_named(const char *name) {
    if (!name) return NULL;
    return en_streq(name, "cpu") ? &en_cpu_backend : en_streq(name, "cuda") ? &en_cuda_backend : NULL;
}

enigma_status enigma_device_open(const char *backend, enigma_device **out) {
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_device_open: out is NULL");
    *out = NULL;
    if (!backend || en_streq(backend, "auto")) {
        if (open_backend(&en_cuda_backend, out) == ENIGMA_OK) return ENIGMA_OK;
        return open_backend(&en_cpu_backend, out);
    }
    const en_backend *b = en_backend_named(backend);
    if (b) return open_backend(b, out);
    return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "unknown backend '%s' (expected cpu, cuda or auto)",
                   backend);
}

void en_device_release(enigma_device *dev) {
    if (!dev || atomic_fetch_sub(&dev->refs, 1) != 1) return;
    if (dev->core.backend->close) dev->core.backend->close(&dev->core);
    free(dev);
}

void enigma_device_close(enigma_device *dev) { en_device_release(dev); }

enigma_status enigma_device_get_info(const enigma_device *dev, enigma_device_info *out) {
    if (!dev) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_device_get_info: dev is NULL");
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_device_get_info: out is NULL");
    *out = dev->core.info;
    return ENIGMA_OK;
}
