/* command.c — bindings and dispatch of one pipeline.
 *
 * Every dispatch is validated here before a backend sees it, and each refusal names the
 * parameter or the limit with its numbers: a backend may assume that every buffer
 * parameter is bound, every [[threadgroup(n)]] has a length, the group fits the pipeline
 * and the device, and the grid fits in 32 bits per dimension. The en_launch geometry
 * follows Metal: by threadgroups, grid = groups * size; by threads, groups =
 * ceil(grid / size) per dimension and the edge groups shrink. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime.h"

typedef struct bytes_slot {
    void *handle;  /* backend buffer holding the bytes of set_bytes */
    size_t size;   /* bytes in use */
    size_t cap;    /* bytes allocated */
} bytes_slot;

struct enigma_command {
    enigma_pipeline *p;
    en_device *dev;
    enigma_buffer *buffers[EN_MAX_BINDINGS];
    size_t offsets[EN_MAX_BINDINGS];
    bool is_bytes[EN_MAX_BINDINGS];
    bytes_slot bytes[EN_MAX_BINDINGS];
    size_t tg_lengths[EN_MAX_TG_BINDINGS];
    bool tg_set[EN_MAX_TG_BINDINGS];
    en_launch launch;
    bool pending;
    struct timespec started;
    uint64_t duration_ns;
    en_check_sink *sink; /* checked libraries only */
    uint64_t timeout_ns; /* enigma_command_set_timeout */
    bool timeout_set;    /* else ENIGMA_DISPATCH_TIMEOUT decides */
};

static uint64_t elapsed_ns(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)(now.tv_sec - since->tv_sec) * 1000000000ull + (uint64_t)now.tv_nsec - (uint64_t)since->tv_nsec;
}

enigma_status enigma_command_create(enigma_pipeline *p, enigma_command **out) {
    const char *fn = "enigma_command_create";
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!p) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: p is NULL", fn);
    if (!p->lib->dev || !p->program)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: kernel '%s' was compiled without a device and cannot run; "
                       "create the library with a device", fn, p->info.name);
    enigma_command *cmd = calloc(1, sizeof *cmd);
    if (!cmd) return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    if (p->lib->build.checked) {
        cmd->sink = en_check_sink_new(&p->lib->ctx.sources);
        if (!cmd->sink) {
            free(cmd);
            return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
        }
    }
    atomic_fetch_add(&p->refs, 1);
    cmd->p = p;
    cmd->dev = &p->lib->dev->core;
    *out = cmd;
    return ENIGMA_OK;
}

void enigma_command_destroy(enigma_command *cmd) {
    if (!cmd) return;
    if (cmd->pending) {
        en_buf err = {0};
        cmd->dev->backend->wait(cmd->dev, &cmd->launch, &err);
        en_buf_free(&err);
    }
    for (int i = 0; i < EN_MAX_BINDINGS; i++)
        if (cmd->bytes[i].handle) cmd->dev->backend->buffer_free(cmd->dev, cmd->bytes[i].handle);
    en_check_sink_free(cmd->sink);
    en_pipeline_release(cmd->p);
    free(cmd);
}

/* ---- finding parameters ------------------------------------------------------------- */
static const char *kernel_name(const enigma_command *cmd) { return cmd->p->info.name; }

static void list_params(const enigma_pipeline *p, enigma_param_kind kind, bool by_index, en_buf *out) {
    int n = 0;
    for (int i = 0; i < p->info.param_count; i++) {
        if (p->params[i].kind != kind) continue;
        if (by_index) en_buf_printf(out, "%s%d", n ? ", " : "", p->params[i].index);
        else en_buf_printf(out, "%s%s", n ? ", " : "", p->params[i].name);
        n++;
    }
    if (!n) en_buf_puts(out, "none");
}

static const enigma_param_info *param_at_binding(const enigma_pipeline *p, enigma_param_kind kind, int index) {
    for (int i = 0; i < p->info.param_count; i++)
        if (p->params[i].kind == kind && p->params[i].index == index) return &p->params[i];
    return NULL;
}

static enigma_status check_not_pending(const enigma_command *cmd, const char *fn) {
    if (!cmd->pending) return ENIGMA_OK;
    return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                   "%s: a dispatch of kernel '%s' is queued on this command; call enigma_command_wait first", fn,
                   kernel_name(cmd));
}

/* the buffer parameter at [[buffer(index)]], or an error naming the kernel's indices */
static enigma_status buffer_param_by_index(const enigma_command *cmd, const char *fn, int index,
                                           const enigma_param_info **out) {
    if (index < 0 || index >= EN_MAX_BINDINGS)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: buffer index %d is out of range (0 to %d)", fn, index,
                       EN_MAX_BINDINGS - 1);
    *out = param_at_binding(cmd->p, ENIGMA_PARAM_BUFFER, index);
    if (*out) return ENIGMA_OK;
    en_buf list = {0};
    list_params(cmd->p, ENIGMA_PARAM_BUFFER, true, &list);
    en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: kernel '%s' has no [[buffer(%d)]] parameter (buffer indices: %s)", fn,
            kernel_name(cmd), index, list.data ? list.data : "");
    en_buf_free(&list);
    return ENIGMA_ERROR_INVALID_ARGUMENT;
}

/* the buffer parameter named `name`, or an error that says what the name is instead */
static enigma_status buffer_param_by_name(const enigma_command *cmd, const char *fn, const char *name,
                                          const enigma_param_info **out) {
    if (!name) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: name is NULL", fn);
    int i = enigma_pipeline_find_param(cmd->p, name);
    if (i < 0) {
        en_buf list = {0};
        list_params(cmd->p, ENIGMA_PARAM_BUFFER, false, &list);
        en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: no parameter named '%s' in kernel '%s' (parameters: %s)", fn, name,
                kernel_name(cmd), list.data ? list.data : "");
        en_buf_free(&list);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    const enigma_param_info *pi = &cmd->p->params[i];
    if (pi->kind == ENIGMA_PARAM_ATTRIBUTE)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                       "%s: parameter '%s' of kernel '%s' is the attribute [[%s]]; it takes no binding", fn, name,
                       kernel_name(cmd), pi->attribute);
    if (pi->kind == ENIGMA_PARAM_THREADGROUP_MEMORY)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                       "%s: parameter '%s' of kernel '%s' is threadgroup memory ([[threadgroup(%d)]]); set its length "
                       "with enigma_command_set_threadgroup_memory", fn, name, kernel_name(cmd), pi->index);
    *out = pi;
    return ENIGMA_OK;
}

/* ---- bindings ---------------------------------------------------------------------------- */
static enigma_status bind_buffer(enigma_command *cmd, const char *fn, const enigma_param_info *pi,
                                 enigma_buffer *buf, size_t offset) {
    if (!buf) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: buf is NULL (for parameter '%s')", fn, pi->name);
    if (buf->dev != cmd->p->lib->dev)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: the buffer for parameter '%s' belongs to another device", fn,
                       pi->name);
    if (offset >= buf->size)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: offset %zu is not inside the buffer of %zu bytes (parameter '%s')",
                       fn, offset, buf->size, pi->name);
    int i = pi->index;
    cmd->buffers[i] = buf;
    cmd->offsets[i] = offset;
    cmd->is_bytes[i] = false;
    return ENIGMA_OK;
}

static enigma_status bind_bytes(enigma_command *cmd, const char *fn, const enigma_param_info *pi, const void *data,
                                size_t bytes) {
    if (!data) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: data is NULL (for parameter '%s')", fn, pi->name);
    if (bytes == 0) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: bytes is 0 (for parameter '%s')", fn, pi->name);
    int i = pi->index;
    bytes_slot *slot = &cmd->bytes[i];
    const en_backend *b = cmd->dev->backend;
    en_buf err = {0};
    if (slot->cap < bytes) {
        if (slot->handle) b->buffer_free(cmd->dev, slot->handle);
        slot->handle = NULL;
        slot->cap = 0;
        enigma_status st = b->buffer_alloc(cmd->dev, bytes, &slot->handle, &err);
        if (st != ENIGMA_OK) {
            en_fail_buf(st, "enigma_command_set_bytes: ", &err);
            en_buf_free(&err);
            return st;
        }
        slot->cap = bytes;
    }
    enigma_status st = b->buffer_write(cmd->dev, slot->handle, 0, data, bytes, &err);
    if (st != ENIGMA_OK) {
        en_fail_buf(st, "enigma_command_set_bytes: ", &err);
        en_buf_free(&err);
        return st;
    }
    slot->size = bytes;
    cmd->buffers[i] = NULL;
    cmd->offsets[i] = 0;
    cmd->is_bytes[i] = true;
    return ENIGMA_OK;
}

enigma_status enigma_command_set_buffer(enigma_command *cmd, int index, enigma_buffer *buf, size_t offset) {
    const char *fn = "enigma_command_set_buffer";
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL", fn);
    const enigma_param_info *pi = NULL;
    enigma_status st = check_not_pending(cmd, fn);
    if (st == ENIGMA_OK) st = buffer_param_by_index(cmd, fn, index, &pi);
    return st == ENIGMA_OK ? bind_buffer(cmd, fn, pi, buf, offset) : st;
}

enigma_status enigma_command_set_bytes(enigma_command *cmd, int index, const void *data, size_t bytes) {
    const char *fn = "enigma_command_set_bytes";
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL", fn);
    const enigma_param_info *pi = NULL;
    enigma_status st = check_not_pending(cmd, fn);
    if (st == ENIGMA_OK) st = buffer_param_by_index(cmd, fn, index, &pi);
    return st == ENIGMA_OK ? bind_bytes(cmd, fn, pi, data, bytes) : st;
}

enigma_status enigma_command_set_buffer_by_name(enigma_command *cmd, const char *name, enigma_buffer *buf,
                                                size_t offset) {
    const char *fn = "enigma_command_set_buffer_by_name";
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL", fn);
    const enigma_param_info *pi = NULL;
    enigma_status st = check_not_pending(cmd, fn);
    if (st == ENIGMA_OK) st = buffer_param_by_name(cmd, fn, name, &pi);
    return st == ENIGMA_OK ? bind_buffer(cmd, fn, pi, buf, offset) : st;
}

enigma_status enigma_command_set_bytes_by_name(enigma_command *cmd, const char *name, const void *data,
                                               size_t bytes) {
    const char *fn = "enigma_command_set_bytes_by_name";
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL", fn);
    const enigma_param_info *pi = NULL;
    enigma_status st = check_not_pending(cmd, fn);
    if (st == ENIGMA_OK) st = buffer_param_by_name(cmd, fn, name, &pi);
    return st == ENIGMA_OK ? bind_bytes(cmd, fn, pi, data, bytes) : st;
}

enigma_status enigma_command_set_threadgroup_memory(enigma_command *cmd, int index, size_t bytes) {
    const char *fn = "enigma_command_set_threadgroup_memory";
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL", fn);
    enigma_status st = check_not_pending(cmd, fn);
    if (st != ENIGMA_OK) return st;
    if (index < 0 || index >= EN_MAX_TG_BINDINGS)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: threadgroup index %d is out of range (0 to %d)", fn, index,
                       EN_MAX_TG_BINDINGS - 1);
    if (!param_at_binding(cmd->p, ENIGMA_PARAM_THREADGROUP_MEMORY, index)) {
        en_buf list = {0};
        list_params(cmd->p, ENIGMA_PARAM_THREADGROUP_MEMORY, true, &list);
        en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: kernel '%s' has no [[threadgroup(%d)]] parameter (threadgroup indices: %s)",
                fn, kernel_name(cmd), index, list.data ? list.data : "");
        en_buf_free(&list);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    /* 0 bytes is a length, as Metal's setThreadgroupMemoryLength:0 is (ggml sets it for kernels
     * that take the parameter but do not use it); an access to it is out of bounds */
    cmd->tg_lengths[index] = bytes;
    cmd->tg_set[index] = true;
    return ENIGMA_OK;
}

/* ---- validation ------------------------------------------------------------------------ */
static enigma_status check_bindings(enigma_command *cmd, en_launch *l) {
    const enigma_pipeline *p = cmd->p;
    for (int i = 0; i < p->info.param_count; i++) {
        const enigma_param_info *pi = &p->params[i];
        if (pi->kind == ENIGMA_PARAM_BUFFER) {
            int b = pi->index;
            if (b < 0 || b >= EN_MAX_BINDINGS)
                return en_fail(ENIGMA_ERROR_INTERNAL, "kernel '%s': parameter '%s' has binding index %d", kernel_name(cmd),
                               pi->name, b);
            if (cmd->is_bytes[b]) {
                l->buffers[b] = (en_binding){.handle = cmd->bytes[b].handle, .offset = 0, .size = cmd->bytes[b].size};
            } else if (cmd->buffers[b]) {
                enigma_buffer *buf = cmd->buffers[b];
                l->buffers[b] = (en_binding){.handle = buf->handle, .offset = cmd->offsets[b], .size = buf->size - cmd->offsets[b]};
            } else {
                return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "buffer parameter '%s' ([[buffer(%d)]]) of kernel '%s' has no binding",
                               pi->name, b, kernel_name(cmd));
            }
            if (pi->is_reference && l->buffers[b].size < pi->element_size)
                return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                               "buffer parameter '%s' ([[buffer(%d)]]) of kernel '%s' is a reference to one %s (%zu bytes) "
                               "but is bound to %zu bytes", pi->name, b, kernel_name(cmd), pi->element_type,
                               pi->element_size, l->buffers[b].size);
        } else if (pi->kind == ENIGMA_PARAM_THREADGROUP_MEMORY) {
            int t = pi->index;
            if (t < 0 || t >= EN_MAX_TG_BINDINGS)
                return en_fail(ENIGMA_ERROR_INTERNAL, "kernel '%s': parameter '%s' has threadgroup index %d", kernel_name(cmd),
                               pi->name, t);
            if (!cmd->tg_set[t])
                return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                               "threadgroup memory parameter '%s' ([[threadgroup(%d)]]) of kernel '%s' has no length; "
                               "set it with enigma_command_set_threadgroup_memory", pi->name, t, kernel_name(cmd));
            l->threadgroup_memory[t] = cmd->tg_lengths[t];
        }
    }
    return ENIGMA_OK;
}

static enigma_status check_threadgroup_memory(enigma_command *cmd, const en_launch *l) {
    const enigma_pipeline *p = cmd->p;
    uint64_t limit = p->device_threadgroup_limit;
    uint64_t total = p->info.static_threadgroup_memory_length;
    for (int t = 0; t < EN_MAX_TG_BINDINGS; t++) total += l->threadgroup_memory[t];
    if (!limit || total <= limit) return ENIGMA_OK;
    en_buf parts = {0};
    en_buf_printf(&parts, "static %llu", (unsigned long long)p->info.static_threadgroup_memory_length);
    for (int t = 0; t < EN_MAX_TG_BINDINGS; t++)
        if (l->threadgroup_memory[t]) en_buf_printf(&parts, " + [[threadgroup(%d)]] %zu", t, l->threadgroup_memory[t]);
    en_fail(ENIGMA_ERROR_LIMIT, "threadgroup memory %llu bytes (%s) exceeds the device limit of %llu for kernel '%s'",
            (unsigned long long)total, parts.data ? parts.data : "", (unsigned long long)limit, kernel_name(cmd));
    en_buf_free(&parts);
    return ENIGMA_ERROR_LIMIT;
}

static enigma_status check_geometry(enigma_command *cmd, enigma_dispatch_mode mode, enigma_size3 size,
                                    enigma_size3 group, en_launch *l) {
    const char *what = mode == ENIGMA_DISPATCH_THREADS ? "threads per grid" : "threadgroups per grid";
    if (group.x == 0 || group.y == 0 || group.z == 0)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "threads per threadgroup %ux%ux%u has a zero dimension",
                       group.x, group.y, group.z);
    if (size.x == 0 || size.y == 0 || size.z == 0)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s %ux%ux%u has a zero dimension", what, size.x, size.y, size.z);
    uint64_t threads = (uint64_t)group.x * group.y * group.z;
    uint32_t max = cmd->p->info.max_total_threads_per_threadgroup;
    if (threads > max)
        return en_fail(ENIGMA_ERROR_LIMIT, "threads per threadgroup %llu (%ux%ux%u) exceeds the limit of %u for kernel '%s'",
                       (unsigned long long)threads, group.x, group.y, group.z, max, kernel_name(cmd));
    uint32_t s[3] = {size.x, size.y, size.z}, g[3] = {group.x, group.y, group.z};
    for (int d = 0; d < 3; d++) {
        l->group_size[d] = g[d];
        if (mode == ENIGMA_DISPATCH_THREADS) {
            l->grid[d] = s[d];
            l->groups[d] = (uint32_t)(((uint64_t)s[d] + g[d] - 1) / g[d]);
        } else {
            uint64_t grid = (uint64_t)s[d] * g[d];
            if (grid > UINT32_MAX)
                return en_fail(ENIGMA_ERROR_LIMIT, "threads per grid in dimension %c: %u threadgroups x %u threads = %llu "
                               "exceeds 2^32-1", "xyz"[d], s[d], g[d], (unsigned long long)grid);
            l->groups[d] = s[d];
            l->grid[d] = (uint32_t)grid;
        }
    }
    l->by_threads = mode == ENIGMA_DISPATCH_THREADS;
    return ENIGMA_OK;
}

/* ---- running -------------------------------------------------------------------------- */
/* A buffer mapped through a host copy (a backend without host-visible memory) stays
 * coherent across dispatches, as Metal's shared storage is: the copy goes to the device
 * before the kernel runs and comes back after it. */
static enigma_status sync_mapped_copies(enigma_command *cmd, bool to_device, en_buf *err) {
    const en_backend *b = cmd->dev->backend;
    for (int i = 0; i < EN_MAX_BINDINGS; i++) {
        enigma_buffer *buf = cmd->is_bytes[i] ? NULL : cmd->buffers[i];
        if (!buf || !buf->mapped || !buf->mapped_copy) continue;
        bool seen = false; /* one buffer may be bound at several indices */
        for (int k = 0; k < i; k++) seen |= !cmd->is_bytes[k] && cmd->buffers[k] == buf;
        if (seen) continue;
        enigma_status st = to_device ? b->buffer_write(cmd->dev, buf->handle, 0, buf->mapped, buf->size, err)
                                     : b->buffer_read(cmd->dev, buf->handle, 0, buf->mapped, buf->size, err);
        if (st != ENIGMA_OK) return st;
    }
    return ENIGMA_OK;
}

/* a backend's failure, as the caller sees it: "kernel 'k': <what the backend said>", unless
 * the backend's message already starts by naming the kernel ("kernel 'k' faulted ...") */
static enigma_status fail_in_kernel(const enigma_command *cmd, enigma_status st, en_buf *err) {
    en_buf prefix = {0}, named = {0};
    en_buf_printf(&named, "kernel '%s' ", kernel_name(cmd));
    if (!(err->data && named.data && strncmp(err->data, named.data, named.len) == 0))
        en_buf_printf(&prefix, "kernel '%s': ", kernel_name(cmd));
    en_buf_free(&named);
    en_fail_buf(st, prefix.data ? prefix.data : "", err);
    en_buf_free(&prefix);
    en_buf_free(err);
    return st;
}

/* the time limit of the next dispatch: the command's own, else ENIGMA_DISPATCH_TIMEOUT
 * (seconds), else none */
static enigma_status dispatch_timeout(const enigma_command *cmd, uint64_t *out) {
    *out = cmd->timeout_ns;
    const char *env = cmd->timeout_set ? NULL : getenv("ENIGMA_DISPATCH_TIMEOUT");
    if (env && *env) {
        char *end = NULL;
        double seconds = strtod(env, &end);
        if (end == env || *end || !(seconds >= 0) || seconds > 1e9)
            return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                           "ENIGMA_DISPATCH_TIMEOUT='%s' is not a number of seconds (such as 2 or 0.5)", env);
        *out = (uint64_t)(seconds * 1e9);
    }
    if (*out && !cmd->dev->backend->cancel)
        return en_fail(ENIGMA_ERROR_UNAVAILABLE,
                       "kernel '%s': dispatch time limits are not supported on the %s backend yet (the "
                       "limit came from %s)", kernel_name(cmd), cmd->dev->backend->name,
                       cmd->timeout_set ? "enigma_command_set_timeout" : "ENIGMA_DISPATCH_TIMEOUT");
    return ENIGMA_OK;
}

enigma_status enigma_command_set_timeout(enigma_command *cmd, uint64_t timeout_ns) {
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_command_set_timeout: cmd is NULL");
    cmd->timeout_ns = timeout_ns;
    cmd->timeout_set = true;
    return ENIGMA_OK;
}

enigma_status enigma_command_cancel(enigma_command *cmd) {
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_command_cancel: cmd is NULL");
    const en_backend *b = cmd->dev->backend;
    if (!b->cancel || !b->cancel(cmd->dev, &cmd->launch))
        return en_fail(ENIGMA_ERROR_UNAVAILABLE, "enigma_command_cancel: the %s backend cannot stop a running "
                                                 "dispatch here (cuda: only on the CUDA worker process, "
                                                 "ENIGMA_CUDA_ISOLATE=1)", b->name);
    return ENIGMA_OK;
}

enigma_status enigma_command_enqueue(enigma_command *cmd, enigma_dispatch_mode mode, enigma_size3 size,
                                     enigma_size3 threads_per_group) {
    const char *fn = "enigma_command_enqueue";
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL", fn);
    enigma_status st = check_not_pending(cmd, fn);
    if (st != ENIGMA_OK) return st;
    if (mode != ENIGMA_DISPATCH_THREADGROUPS && mode != ENIGMA_DISPATCH_THREADS)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: mode %d is not a dispatch mode", fn, (int)mode);
    const en_backend *b = cmd->dev->backend;
    if (!b->dispatch || !b->wait)
        return en_fail(ENIGMA_ERROR_UNAVAILABLE, "the %s backend cannot dispatch kernels yet", b->name);

    en_launch *l = &cmd->launch;
    memset(l, 0, sizeof *l);
    l->module = cmd->p->lib->module;
    l->kernel = cmd->p->kernel;
    l->kernel_index = cmd->p->program_kernel;
    if ((st = check_geometry(cmd, mode, size, threads_per_group, l)) != ENIGMA_OK) return st;
    if ((st = check_bindings(cmd, l)) != ENIGMA_OK) return st;
    if ((st = check_threadgroup_memory(cmd, l)) != ENIGMA_OK) return st;
    if ((st = dispatch_timeout(cmd, &l->timeout_ns)) != ENIGMA_OK) return st;
    if (cmd->sink) {
        en_check_sink_clear(cmd->sink);
        l->check = cmd->sink;
    }
    cmd->duration_ns = 0;
    en_buf err = {0};
    st = sync_mapped_copies(cmd, true, &err);
    clock_gettime(CLOCK_MONOTONIC, &cmd->started);
    if (st == ENIGMA_OK) st = b->dispatch(cmd->dev, cmd->p->program, l, &err);
    if (st != ENIGMA_OK) return fail_in_kernel(cmd, st, &err);
    en_buf_free(&err);
    cmd->pending = true;
    return ENIGMA_OK;
}

enigma_status enigma_command_wait(enigma_command *cmd) {
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_command_wait: cmd is NULL");
    if (!cmd->pending)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_command_wait: no dispatch is queued on this command");
    en_buf err = {0};
    enigma_status st = cmd->dev->backend->wait(cmd->dev, &cmd->launch, &err);
    cmd->pending = false;
    /* the backend's own device time where it measures one, else the host's view */
    cmd->duration_ns = cmd->launch.duration_ns ? cmd->launch.duration_ns : elapsed_ns(&cmd->started);
    if (st == ENIGMA_OK) st = sync_mapped_copies(cmd, false, &err);
    if (st != ENIGMA_OK) return fail_in_kernel(cmd, st, &err);
    en_buf_free(&err);
    int problems = en_check_sink_count(cmd->sink);
    if (problems) {
        enigma_check_report r;
        en_check_sink_get(cmd->sink, 0, &r);
        return en_fail(ENIGMA_ERROR_CHECK_FAILED,
                       "checked mode found %d problem%s in kernel '%s'; the first: %s:%d:%d: %s: %s", problems,
                       problems == 1 ? "" : "s", kernel_name(cmd), r.file, r.line, r.column, r.kind_name, r.message);
    }
    return ENIGMA_OK;
}

enigma_status enigma_command_dispatch(enigma_command *cmd, enigma_dispatch_mode mode, enigma_size3 size,
                                      enigma_size3 threads_per_group) {
    enigma_status st = enigma_command_enqueue(cmd, mode, size, threads_per_group);
    return st == ENIGMA_OK ? enigma_command_wait(cmd) : st;
}

uint64_t enigma_command_last_duration_ns(const enigma_command *cmd) { return cmd ? cmd->duration_ns : 0; }

/* ---- checked-mode reports -------------------------------------------------------------- */
int enigma_command_report_count(const enigma_command *cmd) {
    return cmd && !cmd->pending ? en_check_sink_count(cmd->sink) : 0;
}

enigma_status enigma_command_get_report(const enigma_command *cmd, int index, enigma_check_report *out) {
    const char *fn = "enigma_command_get_report";
    if (!cmd) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL", fn);
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    int n = enigma_command_report_count(cmd);
    if (index < 0 || index >= n || !en_check_sink_get(cmd->sink, index, out))
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: index %d is out of range (the last dispatch has %d report%s)", fn,
                       index, n, n == 1 ? "" : "s");
    return ENIGMA_OK;
}

const char *enigma_command_reports_text(const enigma_command *cmd) {
    if (!cmd || cmd->pending) return "";
    return en_check_sink_text(cmd->sink, kernel_name(cmd));
}
