/* buffer.c — device memory: create, read, write, map.
 *
 * Every access is bounds-checked here, with the numbers in the message, so backends
 * only ever see ranges inside the buffer. Map hands out the buffer's own bytes where the
 * backend has them in host memory (cpu) and a host copy otherwise (cuda), written back
 * on unmap; while mapped, reads and writes go to the copy, and a dispatch that uses the
 * buffer moves the copy to the device and back (command.c). */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static enigma_status check_range(const enigma_buffer *buf, const char *fn, size_t offset,
                                 size_t bytes) {
    if (offset > buf->size || bytes > buf->size - offset)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: offset %zu + %zu bytes exceeds buffer size %zu",
                       fn, offset, bytes, buf->size);
    return ENIGMA_OK;
}

/* a new buffer of `bytes`: the backend's own zeroed memory, or `borrow` used in place */
static enigma_status buffer_new(enigma_device *dev, const char *fn, size_t bytes, void *borrow,
                                enigma_buffer **out) {
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!dev) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: dev is NULL", fn);
    if (bytes == 0) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: bytes is 0 (a buffer needs at least 1 byte)", fn);
    const en_backend *b = dev->core.backend;
    if (borrow ? !b->buffer_borrow : !b->buffer_alloc)
        return en_fail(ENIGMA_ERROR_UNAVAILABLE, "%s: the %s backend cannot %s buffers", fn, b->name,
                       borrow ? "use caller memory as" : "allocate");
    enigma_buffer *buf = calloc(1, sizeof *buf);
    if (!buf) return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    en_buf err = {0};
    enigma_status st = borrow ? b->buffer_borrow(&dev->core, borrow, bytes, &buf->handle, &err)
                              : b->buffer_alloc(&dev->core, bytes, &buf->handle, &err);
    if (st != ENIGMA_OK) {
        en_buf prefix = {0};
        en_buf_printf(&prefix, "%s: %zu bytes: ", fn, bytes);
        en_fail_buf(st, prefix.data ? prefix.data : "", &err);
        en_buf_free(&prefix);
        en_buf_free(&err);
        free(buf);
        return st;
    }
    en_buf_free(&err);
    atomic_fetch_add(&dev->refs, 1);
    buf->dev = dev;
    buf->size = bytes;
    *out = buf;
    return ENIGMA_OK;
}

enigma_status enigma_buffer_create(enigma_device *dev, size_t bytes, enigma_buffer **out) {
    /* backends hand out zeroed memory (the contract of buffer_alloc) */
    return buffer_new(dev, "enigma_buffer_create", bytes, NULL, out);
}

enigma_status enigma_buffer_create_from_memory(enigma_device *dev, void *memory, size_t bytes,
                                               enigma_buffer **out) {
    if (out) *out = NULL;
    if (!memory && out)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_buffer_create_from_memory: memory is NULL");
    return buffer_new(dev, "enigma_buffer_create_from_memory", bytes, memory, out);
}

enigma_status enigma_buffer_create_with_data(enigma_device *dev, const void *data, size_t bytes,
                                             enigma_buffer **out) {
    if (out) *out = NULL;
    if (!data && out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_buffer_create_with_data: data is NULL");
    enigma_status st = buffer_new(dev, "enigma_buffer_create_with_data", bytes, NULL, out);
    if (st != ENIGMA_OK) return st;
    st = enigma_buffer_write(*out, 0, data, bytes);
    if (st != ENIGMA_OK) {
        enigma_buffer_destroy(*out);
        *out = NULL;
    }
    return st;
}

void enigma_buffer_destroy(enigma_buffer *buf) {
    if (!buf) return;
    if (buf->mapped_copy) free(buf->mapped);
    const en_backend *b = buf->dev->core.backend;
    if (b->buffer_free) b->buffer_free(&buf->dev->core, buf->handle);
    en_device_release(buf->dev);
    free(buf);
}

size_t enigma_buffer_size(const enigma_buffer *buf) { return buf ? buf->size : 0; }

enigma_status enigma_buffer_write(enigma_buffer *buf, size_t offset, const void *src, size_t bytes) {
    const char *fn = "enigma_buffer_write";
    if (!buf) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: buf is NULL", fn);
    if (!src && bytes) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: src is NULL", fn);
    enigma_status st = check_range(buf, fn, offset, bytes);
    if (st != ENIGMA_OK || bytes == 0) return st;
    if (buf->mapped && buf->mapped_copy) { /* keep the mapped copy the truth until unmap */
        memcpy((char *)buf->mapped + offset, src, bytes);
        return ENIGMA_OK;
    }
    en_buf err = {0};
    st = buf->dev->core.backend->buffer_write(&buf->dev->core, buf->handle, offset, src, bytes, &err);
    if (st != ENIGMA_OK) en_fail_buf(st, "enigma_buffer_write: ", &err);
    en_buf_free(&err);
    return st;
}

enigma_status enigma_buffer_read(const enigma_buffer *buf, size_t offset, void *dst, size_t bytes) {
    const char *fn = "enigma_buffer_read";
    if (!buf) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: buf is NULL", fn);
    if (!dst && bytes) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: dst is NULL", fn);
    enigma_status st = check_range(buf, fn, offset, bytes);
    if (st != ENIGMA_OK || bytes == 0) return st;
    if (buf->mapped && buf->mapped_copy) {
        memcpy(dst, (char *)buf->mapped + offset, bytes);
        return ENIGMA_OK;
    }
    en_buf err = {0};
    st = buf->dev->core.backend->buffer_read(&buf->dev->core, buf->handle, offset, dst, bytes, &err);
    if (st != ENIGMA_OK) en_fail_buf(st, "enigma_buffer_read: ", &err);
    en_buf_free(&err);
    return st;
}

enigma_status enigma_buffer_map(enigma_buffer *buf, void **host) {
    if (!buf) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_buffer_map: buf is NULL");
    if (!host) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_buffer_map: host is NULL");
    if (buf->mapped) { /* mapping twice hands out the same bytes */
        *host = buf->mapped;
        return ENIGMA_OK;
    }
    en_device *d = &buf->dev->core;
    void *p = d->backend->buffer_host ? d->backend->buffer_host(d, buf->handle) : NULL;
    if (p) {
        buf->mapped = p;
        buf->mapped_copy = false;
        *host = p;
        return ENIGMA_OK;
    }
    void *copy = malloc(buf->size);
    if (!copy) return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "enigma_buffer_map: out of memory for a host copy of %zu bytes", buf->size);
    enigma_status st = enigma_buffer_read(buf, 0, copy, buf->size);
    if (st != ENIGMA_OK) {
        free(copy);
        return st;
    }
    buf->mapped = copy;
    buf->mapped_copy = true;
    *host = copy;
    return ENIGMA_OK;
}

enigma_status enigma_buffer_unmap(enigma_buffer *buf) {
    if (!buf) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_buffer_unmap: buf is NULL");
    if (!buf->mapped) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_buffer_unmap: the buffer is not mapped");
    enigma_status st = ENIGMA_OK;
    if (buf->mapped_copy) {
        void *copy = buf->mapped;
        buf->mapped = NULL;
        buf->mapped_copy = false;
        st = enigma_buffer_write(buf, 0, copy, buf->size);
        free(copy);
    }
    buf->mapped = NULL;
    return st;
}
