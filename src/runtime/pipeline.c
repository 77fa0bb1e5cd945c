/* pipeline.c — one kernel of a library, with Metal's introspection.
 *
 * Everything is read from the kernel's IR: the parameters as declared, the static
 * threadgroup memory (the kernel-scope `threadgroup` variables, each at its alignment),
 * and maxTotalThreadsPerThreadgroup, the smallest of 1024, the kernel's
 * [[max_total_threads_per_threadgroup]], the device's limit and the backend's own bound
 * for this kernel. */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static enigma_scalar public_scalar(const ir_type *t) {
    switch (t ? t->kind : IR_T_VOID) {
    case IR_T_BOOL: return ENIGMA_SCALAR_BOOL;
    case IR_T_I8: return ENIGMA_SCALAR_I8;
    case IR_T_U8: return ENIGMA_SCALAR_U8;
    case IR_T_I16: return ENIGMA_SCALAR_I16;
    case IR_T_U16: return ENIGMA_SCALAR_U16;
    case IR_T_I32: return ENIGMA_SCALAR_I32;
    case IR_T_U32: return ENIGMA_SCALAR_U32;
    case IR_T_I64: return ENIGMA_SCALAR_I64;
    case IR_T_U64: return ENIGMA_SCALAR_U64;
    case IR_T_F16: return ENIGMA_SCALAR_F16;
    case IR_T_BF16: return ENIGMA_SCALAR_BF16;
    case IR_T_F32: return ENIGMA_SCALAR_F32;
    default: return ENIGMA_SCALAR_NONE;
    }
}

/* "device const float*" for T*, "constant uint&" for a parameter declared T& */
static const char *declared_type_name(const ir_var *v, en_arena *a) {
    const char *name = ir_type_name(v->type, a);
    if (v->is_reference && v->type->kind == IR_T_PTR) {
        size_t n = strlen(name);
        if (n && name[n - 1] == '*') return en_fmt(a, "%.*s&", (int)(n - 1), name);
    }
    return name;
}

static void describe_param(enigma_pipeline *p, const ir_var *v, enigma_param_info *out) {
    en_arena *a = &p->arena;
    const ir_type *t = v->type;
    /* buffers and threadgroup memory are pointers: one element is the pointee */
    const ir_type *elem = (t->kind == IR_T_PTR) ? t->elem : t;
    const ir_type *scalar_elem = elem;
    if (elem->kind == IR_T_ATOMIC) scalar_elem = elem->elem;
    *out = (enigma_param_info){
        .name = v->name,
        .index = -1,
        .type_name = declared_type_name(v, a),
        .element_type = ir_type_name(elem, a),
        .element_scalar = ir_is_scalar(scalar_elem) || scalar_elem->kind == IR_T_VEC
                              ? public_scalar(ir_scalar_of(scalar_elem))
                              : ENIGMA_SCALAR_NONE,
        .element_lanes = scalar_elem->kind == IR_T_VEC ? (int)scalar_elem->count : 1,
        /* `device const void *` (ggml's untyped buffers): counted in bytes */
        .element_size = elem->kind == IR_T_VOID ? 1 : elem->size,
        .is_const = t->kind == IR_T_PTR && (t->is_const || t->space == IR_SPACE_CONSTANT),
        .is_reference = v->is_reference,
    };
    switch (v->param_kind) {
    case IR_PARAM_BUFFER:
        out->kind = ENIGMA_PARAM_BUFFER;
        out->index = v->binding;
        break;
    case IR_PARAM_THREADGROUP:
        out->kind = ENIGMA_PARAM_THREADGROUP_MEMORY;
        out->index = v->binding;
        break;
    default:
        out->kind = ENIGMA_PARAM_ATTRIBUTE;
        out->attribute = ir_attr_name(v->attr);
        break;
    }
}

static uint64_t static_threadgroup_bytes(const ir_func *k) {
    uint64_t total = 0;
    for (int i = 0; i < k->threadgroup_vars.count; i++) {
        const ir_type *t = k->threadgroup_vars.items[i]->type;
        uint64_t align = t->align ? t->align : 1;
        total = (total + align - 1) / align * align + t->size;
    }
    return total;
}

static enigma_status find_kernel(enigma_library *lib, const char *name, int *index) {
    const char *fn = "enigma_pipeline_create";
    if (lib->kernel_count == 0) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: the library has no kernels", fn);
    if (!name) {
        if (lib->kernel_count == 1) {
            *index = 0;
            return ENIGMA_OK;
        }
    } else {
        for (int i = 0; i < lib->kernel_count; i++)
            if (en_streq(lib->kernels[i]->name, name)) {
                *index = i;
                return ENIGMA_OK;
            }
    }
    en_buf names = {0};
    for (int i = 0; i < lib->kernel_count; i++) en_buf_printf(&names, "%s%s", i ? ", " : "", lib->kernels[i]->name);
    if (name)
        en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: no kernel named '%s' in the library (kernels: %s)", fn, name,
                names.data ? names.data : "");
    else
        en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: the library has %d kernels; name one (kernels: %s)", fn,
                lib->kernel_count, names.data ? names.data : "");
    en_buf_free(&names);
    return ENIGMA_ERROR_INVALID_ARGUMENT;
}

enigma_status enigma_pipeline_create(enigma_library *lib, const char *kernel, enigma_pipeline **out) {
    const char *fn = "enigma_pipeline_create";
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!lib) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: lib is NULL", fn);
    if (!lib->module) return en_fail(ENIGMA_ERROR_COMPILE, "%s: the library has compile errors", fn);
    int index = -1;
    enigma_status st = find_kernel(lib, kernel, &index);
    if (st != ENIGMA_OK) return st;
    const ir_func *k = lib->kernels[index];
    en_program *program = NULL;
    int program_kernel = index;
    if (lib->dev) {
        st = en_library_program(lib, index, &program, &program_kernel);
        if (st != ENIGMA_OK) return st;
    }

    uint32_t max_threads = 1024;
    uint64_t static_tg = static_threadgroup_bytes(k);
    if (k->max_total_threads_per_threadgroup && k->max_total_threads_per_threadgroup < max_threads)
        max_threads = k->max_total_threads_per_threadgroup;
    if (lib->dev) {
        en_device *d = &lib->dev->core;
        if (d->info.max_threads_per_threadgroup && d->info.max_threads_per_threadgroup < max_threads)
            max_threads = d->info.max_threads_per_threadgroup;
        if (d->backend->kernel_limits && program) {
            en_kernel_limits lim = {0};
            en_buf err = {0};
            st = d->backend->kernel_limits(d, program, program_kernel, &lim, &err);
            if (st != ENIGMA_OK) {
                en_fail_buf(st, "enigma_pipeline_create: ", &err);
                en_buf_free(&err);
                return st;
            }
            en_buf_free(&err);
            if (lim.max_total_threads_per_threadgroup && lim.max_total_threads_per_threadgroup < max_threads)
                max_threads = lim.max_total_threads_per_threadgroup;
            if (lim.static_threadgroup_memory > static_tg) static_tg = lim.static_threadgroup_memory;
        }
    }

    enigma_pipeline *p = calloc(1, sizeof *p);
    if (!p) return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    atomic_init(&p->refs, 1);
    en_arena_init(&p->arena);
    p->kernel = k;
    p->kernel_index = index;
    p->program = program;
    p->program_kernel = program_kernel;
    p->device_threadgroup_limit = lib->dev ? lib->dev->core.info.max_threadgroup_memory : 0;
    p->info = (enigma_pipeline_info){
        .name = k->name,
        .max_total_threads_per_threadgroup = max_threads,
        .thread_execution_width = 32,
        .static_threadgroup_memory_length = static_tg,
        .param_count = k->param_count,
    };
    if (k->param_count) {
        p->params = en_alloc(&p->arena, sizeof *p->params * (size_t)k->param_count);
        p->param_vars = en_alloc(&p->arena, sizeof *p->param_vars * (size_t)k->param_count);
        for (int i = 0; i < k->param_count && !p->arena.out_of_memory; i++) {
            p->param_vars[i] = k->params[i];
            describe_param(p, k->params[i], &p->params[i]);
        }
    }
    if (p->arena.out_of_memory) {
        en_arena_free(&p->arena);
        free(p);
        return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    atomic_fetch_add(&lib->refs, 1);
    p->lib = lib;
    *out = p;
    return ENIGMA_OK;
}

void en_pipeline_release(enigma_pipeline *p) {
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1) return;
    en_library_release(p->lib);
    en_arena_free(&p->arena);
    free(p);
}

void enigma_pipeline_destroy(enigma_pipeline *p) { en_pipeline_release(p); }

enigma_status enigma_pipeline_get_info(const enigma_pipeline *p, enigma_pipeline_info *out) {
    if (!p) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_pipeline_get_info: p is NULL");
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_pipeline_get_info: out is NULL");
    *out = p->info;
    return ENIGMA_OK;
}

enigma_status enigma_pipeline_get_param(const enigma_pipeline *p, int i, enigma_param_info *out) {
    if (!p) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_pipeline_get_param: p is NULL");
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_pipeline_get_param: out is NULL");
    if (i < 0 || i >= p->info.param_count)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_pipeline_get_param: index %d is out of range (kernel '%s' has %d parameter%s)",
                       i, p->info.name, p->info.param_count, p->info.param_count == 1 ? "" : "s");
    *out = p->params[i];
    return ENIGMA_OK;
}

int enigma_pipeline_find_param(const enigma_pipeline *p, const char *name) {
    if (!p || !name) return -1;
    for (int i = 0; i < p->info.param_count; i++)
        if (en_streq(p->params[i].name, name)) return i;
    return -1;
}
