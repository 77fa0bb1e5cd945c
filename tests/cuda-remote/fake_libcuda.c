/* fake_libcuda.c — a stand-in for libcuda.so.1 (loaded through ENIGMA_LIBCUDA) so that the
 * cuda backend's fault recovery and its CUDA worker (src/cuda/remote.c, worker.c) run on a
 * machine without a GPU. Every entry point of api.h's EN_CUDA_DRIVER_FUNCTIONS and
 * cuFuncGetParamInfo is here, with the real driver's behaviour where the tests look:
 *   - one device, sm_90; memory is host malloc (a CUdeviceptr is the host address); copies
 *     are memcpy and check that they stay inside one allocation (else INVALID_VALUE);
 *   - cuModuleLoadData takes the real cubin NVRTC made (an ELF image, copied); a function's
 *     parameter layout (cuFuncGetParamInfo) is read from the cubin itself, from the
 *     EIATTR_KPARAM_INFO records of its .nv.info.<name> section, so it is exactly what the
 *     real driver would report and what driver.c must pack;
 *   - launches run a simulation chosen by the kernel's name:
 *       affine*  out[i] = i * 7 + k for i < threads_per_grid.x, with out the first buffer
 *                parameter and k the constant behind it (taken by value, or through its
 *                pointer when one is passed): a wrong parameter layout gives wrong numbers,
 *                and an `out` too small for the grid is an illegal address;
 *       fault*   an illegal address: the launch succeeds and the error 700 is sticky from
 *                then on, returned by every later call of this process, the context
 *                reset and retain included, as the real driver (580.x) does after a fault;
 *       hang*    the next synchronisation never returns (a kernel that runs forever);
 *   - with FAKE_CUDA_NO_PARAM_INFO=1, cuFuncGetParamInfo fails with NOT_SUPPORTED (a
 *     driver that cannot report parameter layouts);
 * Every object stays reachable from this file's lists, so LeakSanitizer does not blame the
 * library for what a fault made unreachable. Not thread-safe beyond one lock per call. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/api.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct object {
    struct object *next;
    int kind;             /* what the payload is */
    size_t size;          /* payload bytes */
    _Alignas(16) unsigned char payload[];
} object;

enum { ALLOCATION, MODULE, FUNCTION, STREAM, EVENT };

typedef struct function {
    char name[256];
    int param_count;
    size_t offset[128], size[128];
} function;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static object *objects;
static CUresult sticky;           /* the fault every later call returns */
static int hanging;               /* a hang* kernel was launched */
static int retains;
static int primary_context;       /* its address is the one context */
static int launches;              /* launches in this process: the tests' evidence of isolation */

static object *new_object(int kind, size_t size) {
    object *o = calloc(1, sizeof *o + (size ? size : 1));
    if (!o) return NULL;
    o->kind = kind;
    o->size = size;
    o->next = objects;
    objects = o;
    return o;
}

static object *find(const void *payload, int kind) {
    for (object *o = objects; o; o = o->next)
        if (o->kind == kind && (const void *)o->payload == payload) return o;
    return NULL;
}

static void drop(object *gone) {
    for (object **p = &objects; *p; p = &(*p)->next)
        if (*p == gone) {
            *p = gone->next;
            free(gone);
            return;
        }
}

/* the allocation that holds [p, p + n), or NULL */
static object *allocation_of(CUdeviceptr p, size_t n) {
    for (object *o = objects; o; o = o->next) {
        uintptr_t start = (uintptr_t)o->payload;
        if (o->kind == ALLOCATION && p >= start && p + n <= start + o->size && p + n >= p) return o;
    }
    return NULL;
}

#define STICKY()                                                                             \
    do {                                                                                     \
        if (sticky) return sticky;                                                           \
    } while (0)

EXPORT int fake_cuda_launches(void) { return launches; }

EXPORT CUresult cuInit(unsigned flags) { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
EXPORT CUresult cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }

static const struct { CUresult code; const char *name, *message; } errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

EXPORT CUresult cuGetErrorString(CUresult r, const char **s) {
    for (size_t i = 0; i < EN_COUNT(errors); i++)
        if (errors[i].code == r) {
            *s = errors[i].message;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorName(CUresult r, const char **s) {
    for (size_t i = 0; i < EN_COUNT(errors); i++)
        if (errors[i].code == r) {
            *s = errors[i].name;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }
EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (ordinal != 0) return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *d = 0;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 4; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 48 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    default: *v = 0; break;
    }
    return d == 0 ? CUDA_SUCCESS : 101;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    snprintf(name, (size_t)len, "enigma fake CUDA device");
    return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { *bytes = 1ull << 30; return CUDA_SUCCESS; }

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
    STICKY();
    retains++;
    *c = (CUcontext)(void *)&primary_context;
    return CUDA_SUCCESS;
}
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    STICKY();
    if (retains > 0) retains--;
    return CUDA_SUCCESS;
}
EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice d) { STICKY(); return CUDA_SUCCESS; }
EXPORT CUresult cuCtxSetCurrent(CUcontext c) { return CUDA_SUCCESS; }

/* a hang* kernel never finishes: the caller waits until its process is killed */
static CUresult synchronize(void) {
    STICKY();
    while (hanging) pause();
    return CUDA_SUCCESS;
}
EXPORT CUresult cuCtxSynchronize(void) { return synchronize(); }
EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    STICKY();
    *free_bytes = *total = 1ull << 30;
    return CUDA_SUCCESS;
}

/* ---- modules: the cubin's own records ---------------------------------------------------- */
static uint64_t u64_at(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t u32_at(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t u16_at(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* the file size of an ELF64 image: the furthest end of its headers and section contents */
static size_t elf_size(const unsigned char *e) {
    uint64_t shoff = u64_at(e + 0x28);
    uint16_t shentsize = u16_at(e + 0x3a), shnum = u16_at(e + 0x3c);
    uint64_t end = shoff + (uint64_t)shnum * shentsize;
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = e + shoff + (uint64_t)i * shentsize;
        if (u32_at(sh + 4) == 8) continue; /* SHT_NOBITS */
        if (u64_at(sh + 0x18) + u64_at(sh + 0x20) > end) end = u64_at(sh + 0x18) + u64_at(sh + 0x20);
    }
    return (size_t)end;
}

EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image) {
    STICKY();
    const unsigned char *e = image;
    if (!e || memcmp(e, "\x7f" "ELF", 4) != 0 || e[4] != 2) return CUDA_ERROR_INVALID_IMAGE;
    size_t size = elf_size(e);
    pthread_mutex_lock(&lock);
    object *o = new_object(MODULE, size);
    if (o) memcpy(o->payload, e, size);
    pthread_mutex_unlock(&lock);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    *m = (CUmodule)(void *)o->payload;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleUnload(CUmodule m) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *o = find(m, MODULE);
    if (o) drop(o);
    pthread_mutex_unlock(&lock);
    return o ? CUDA_SUCCESS : 400; /* CUDA_ERROR_INVALID_HANDLE */
}

/* EIATTR_KPARAM_INFO records (attribute 0x17, a 12-byte value: index, ordinal, offset,
 * then flags with the size in bits 18..31) of the section .nv.info.<name> */
static bool read_param_layout(const unsigned char *e, const char *name, function *f) {
    uint64_t shoff = u64_at(e + 0x28);
    uint16_t shentsize = u16_at(e + 0x3a), shnum = u16_at(e + 0x3c), shstrndx = u16_at(e + 0x3e);
    const unsigned char *strtab = e + u64_at(e + shoff + (uint64_t)shstrndx * shentsize + 0x18);
    char want[300];
    snprintf(want, sizeof want, ".nv.info.%s", name);
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = e + shoff + (uint64_t)i * shentsize;
        if (strcmp((const char *)strtab + u32_at(sh), want) != 0) continue;
        const unsigned char *p = e + u64_at(sh + 0x18), *end = p + u64_at(sh + 0x20);
        f->param_count = 0;
        while (p + 2 <= end) {
            unsigned format = p[0], attribute = p[1];
            p += 2;
            size_t value = format == 1 ? 0 : format == 2 ? 1 : format == 3 ? 2 : 0;
            if (format == 4) { /* a size, then that many bytes */
                value = u16_at(p);
                p += 2;
            }
            if (attribute == 0x17 && format == 4 && value == 12) {
                unsigned ordinal = u16_at(p + 4), offset = u16_at(p + 6);
                unsigned size = (u32_at(p + 8) >> 18) & 0x3fff;
                if (ordinal < EN_COUNT(f->offset)) {
                    f->offset[ordinal] = offset;
                    f->size[ordinal] = size;
                    if ((int)ordinal + 1 > f->param_count) f->param_count = (int)ordinal + 1;
                }
            }
            p += value;
        }
        return true;
    }
    return false;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *out, CUmodule m, const char *name) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *mod = find(m, MODULE);
    function layout = {0};
    CUresult r = !mod ? 400 : read_param_layout(mod->payload, name, &layout) ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
    object *o = r == CUDA_SUCCESS ? new_object(FUNCTION, sizeof(function)) : NULL;
    if (o) {
        snprintf(layout.name, sizeof layout.name, "%s", name);
        memcpy(o->payload, &layout, sizeof layout);
        *out = (CUfunction)(void *)o->payload;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

EXPORT CUresult cuFuncGetAttribute(int *v, int attr, CUfunction f) {
    STICKY();
    *v = attr == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : attr == CU_FUNC_ATTRIBUTE_NUM_REGS ? 32 : 0;
    return CUDA_SUCCESS;
}
EXPORT CUresult cuFuncSetAttribute(CUfunction f, int attr, int value) { STICKY(); return CUDA_SUCCESS; }

EXPORT CUresult cuFuncGetParamInfo(CUfunction fn, size_t index, size_t *offset, size_t *size) {
    /* FAKE_CUDA_NO_PARAM_INFO=1: a driver that cannot report layouts */
    const char *none = getenv("FAKE_CUDA_NO_PARAM_INFO");
    if (none && *none == '1') return CUDA_ERROR_NOT_SUPPORTED;
    const function *f = (const function *)(void *)fn;
    if ((int)index >= f->param_count) return CUDA_ERROR_INVALID_VALUE;
    *offset = f->offset[index];
    *size = f->size[index];
    return CUDA_SUCCESS;
}

/* an illegal address inside a kernel: the launch itself succeeds, the error stays */
static CUresult illegal_address(void) {
    sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    return CUDA_SUCCESS;
}

/* affine*: parameters (en_dispatch, uint *out, const uint *k, uint k_value) */
static CUresult run_affine(const function *f, void **params) {
    if (f->param_count != 4 || f->size[0] != 28 || f->size[1] != 8 || f->size[2] != 8 || f->size[3] != 4)
        return CUDA_ERROR_INVALID_VALUE; /* not the kernel the tests compile */
    uint32_t dispatch[7];
    CUdeviceptr out, k_ptr;
    uint32_t k;
    memcpy(dispatch, params[0], sizeof dispatch);
    memcpy(&out, params[1], 8);
    memcpy(&k_ptr, params[2], 8);
    memcpy(&k, params[3], 4);
    if (k_ptr) {
        if (!allocation_of(k_ptr, 4)) return illegal_address();
        memcpy(&k, (const void *)(uintptr_t)k_ptr, 4);
    }
    uint32_t n = dispatch[0]; /* threads_per_grid.x */
    if (!allocation_of(out, (size_t)n * 4)) return illegal_address();
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = i * 7u + k;
        memcpy((unsigned char *)(uintptr_t)out + 4ull * i, &v, 4);
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                               void **extra) {
    STICKY();
    if (extra || !params) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    const object *o = find(fn, FUNCTION);
    CUresult r = 400;
    if (o) {
        const function *f = (const function *)(const void *)o->payload;
        launches++;
        r = CUDA_SUCCESS;
        if (strncmp(f->name, "fault", 5) == 0) r = illegal_address();
        else if (strncmp(f->name, "hang", 4) == 0) hanging = 1;
        else if (strncmp(f->name, "affine", 6) == 0) r = run_affine(f, params);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *o = new_object(ALLOCATION, bytes);
    pthread_mutex_unlock(&lock);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)o->payload;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *o = find((const void *)(uintptr_t)p, ALLOCATION);
    if (o) drop(o);
    pthread_mutex_unlock(&lock);
    return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *o = allocation_of(dst, n);
    if (o) memcpy((void *)(uintptr_t)dst, src, n);
    pthread_mutex_unlock(&lock);
    return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    CUresult r = synchronize(); /* a copy waits for the queued kernels, as the real one does */
    if (r) return r;
    pthread_mutex_lock(&lock);
    object *o = allocation_of(src, n);
    if (o) memcpy(dst, (const void *)(uintptr_t)src, n);
    pthread_mutex_unlock(&lock);
    return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *o = allocation_of(p, n);
    if (o) memset((void *)(uintptr_t)p, v, n);
    pthread_mutex_unlock(&lock);
    return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult create(int kind, void **out) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *o = new_object(kind, 16);
    pthread_mutex_unlock(&lock);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    *out = o->payload;
    return CUDA_SUCCESS;
}

static CUresult destroy(int kind, void *handle) {
    STICKY();
    pthread_mutex_lock(&lock);
    object *o = find(handle, kind);
    if (o) drop(o);
    pthread_mutex_unlock(&lock);
    return o ? CUDA_SUCCESS : 400;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned flags) { return create(STREAM, (void **)s); }
EXPORT CUresult cuStreamDestroy_v2(CUstream s) { return destroy(STREAM, s); }
EXPORT CUresult cuStreamSynchronize(CUstream s) { return synchronize(); }
EXPORT CUresult cuStreamQuery(CUstream s) {
    STICKY();
    return hanging ? 600 /* CUDA_ERROR_NOT_READY */ : CUDA_SUCCESS;
}
EXPORT CUresult cuEventCreate(CUevent *e, unsigned flags) { return create(EVENT, (void **)e); }
EXPORT CUresult cuEventDestroy_v2(CUevent e) { return destroy(EVENT, e); }
EXPORT CUresult cuEventRecord(CUevent e, CUstream s) { STICKY(); return CUDA_SUCCESS; }
EXPORT CUresult cuEventSynchronize(CUevent e) { return synchronize(); }
EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) {
    STICKY();
    *ms = 0.01f;
    return CUDA_SUCCESS;
}
