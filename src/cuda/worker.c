/* worker.c — the CUDA worker process's loop (enigma-cuda-worker runs it): loads the real
 * driver with en_cuda_driver_load, greets the library, then executes the requests of
 * remote_protocol.h one at a time until the socket reaches end of file.
 *
 * Needs: a connected AF_UNIX stream socket whose other end is remote.c.
 * Guarantees:
 *   - every request is answered, in order, with the CUresult of the one driver call it
 *     names; a request the worker cannot even read ends the loop (the library sees the
 *     socket close and treats the worker as dead);
 *   - the worker keeps the current context itself (it is single-threaded, so one
 *     cuCtxSetCurrent holds for every later call until the next);
 *   - a kernel's parameter layout is read once, at cuModuleGetFunction, with
 *     cuFuncGetParamInfo for index 0, 1, 2, ... until the driver says there is no such
 *     parameter (CUDA_ERROR_INVALID_VALUE); any other failure makes the layout unknown, and
 *     the library refuses to launch that function; launches arrive as one packed buffer
 *     and its offsets.
 * Nothing here prints: the worker's standard streams are /dev/null. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "api.h"
#include "remote_protocol.h"

static bool respond(int fd, en_remote_response *rs, const void *data) {
    return en_remote_write_all(fd, rs, sizeof *rs) && (rs->data_bytes == 0 || en_remote_write_all(fd, data, rs->data_bytes));
}

#define HANDLE(T, v) ((T)(uintptr_t)(v))
#define WIRE(h) ((uint64_t)(uintptr_t)(h))

/* the (offset, size) pairs of f's parameters, into `out` (malloc'ed); the count, or
 * EN_REMOTE_LAYOUT_UNKNOWN when the driver cannot say */
static uint64_t param_layout(const en_cuda_driver *cu, CUfunction f, uint64_t **out) {
    *out = NULL;
    if (!cu->cuFuncGetParamInfo) return EN_REMOTE_LAYOUT_UNKNOWN;
    uint64_t *pairs = NULL;
    uint64_t count = 0;
    for (; count < EN_REMOTE_MAX_PARAMS; count++) {
        size_t offset = 0, size = 0;
        CUresult r = cu->cuFuncGetParamInfo(f, (size_t)count, &offset, &size);
        if (r == CUDA_ERROR_INVALID_VALUE) break; /* the driver's "no parameter of that index" */
        if (r != CUDA_SUCCESS) { /* it cannot say: a guessed count would garble the launch */
            free(pairs);
            return EN_REMOTE_LAYOUT_UNKNOWN;
        }
        uint64_t *grown = realloc(pairs, (size_t)(count + 1) * 2 * sizeof *pairs);
        if (!grown) {
            free(pairs);
            return EN_REMOTE_LAYOUT_UNKNOWN;
        }
        pairs = grown;
        pairs[2 * count] = offset;
        pairs[2 * count + 1] = size;
    }
    *out = pairs;
    return count;
}

/* rebuilds the void** of a launch from the offsets and the packed buffer, and launches */
static CUresult launch(const en_cuda_driver *cu, const en_remote_request *rq, unsigned char *data) {
    uint64_t n = rq->args[9];
    if (n > EN_REMOTE_MAX_PARAMS) return CUDA_ERROR_INVALID_VALUE;
    size_t head = (size_t)((n * sizeof(uint64_t) + 15) / 16 * 16);
    if (head > rq->data_bytes) return CUDA_ERROR_INVALID_VALUE;
    /* 16-aligned: data is malloc'ed, head a multiple of 16; a launch with no parameters may
     * come with no data at all (no offset is applied to NULL then) */
    unsigned char *packed = data ? data + head : NULL;
    size_t packed_bytes = (size_t)rq->data_bytes - head;
    void **params = calloc(n ? (size_t)n : 1, sizeof *params);
    if (!params) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = CUDA_SUCCESS;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t offset;
        memcpy(&offset, data + i * sizeof offset, sizeof offset);
        if (offset >= packed_bytes) r = CUDA_ERROR_INVALID_VALUE;
        else params[i] = packed + offset;
    }
    if (r == CUDA_SUCCESS)
        r = cu->cuLaunchKernel(HANDLE(CUfunction, rq->args[0]), (unsigned)rq->args[1], (unsigned)rq->args[2],
                               (unsigned)rq->args[3], (unsigned)rq->args[4], (unsigned)rq->args[5],
                               (unsigned)rq->args[6], (unsigned)rq->args[7], HANDLE(CUstream, rq->args[8]),
                               params, NULL);
    free(params);
    return r;
}

/* one request: the call, its outputs in `rs`, any bytes to send back in *reply (which the
 * caller frees when it is not `data`) */
static void execute(const en_cuda_driver *cu, const en_remote_request *rq, unsigned char *data,
                    en_remote_response *rs, void **reply) {
    const uint64_t *a = rq->args;
    uint64_t *v = rs->values;
    CUresult r = CUDA_ERROR_NOT_SUPPORTED;
    switch ((enum en_remote_op)rq->op) {
    case EN_OP_INIT: r = cu->cuInit((unsigned)a[0]); break;
    case EN_OP_DRIVER_GET_VERSION: {
        int version = 0;
        r = cu->cuDriverGetVersion(&version);
        v[0] = (uint64_t)version;
        break;
    }
    case EN_OP_DEVICE_GET_COUNT: {
        int count = 0;
        r = cu->cuDeviceGetCount(&count);
        v[0] = (uint64_t)count;
        break;
    }
    case EN_OP_DEVICE_GET: {
        CUdevice device = 0;
        r = cu->cuDeviceGet(&device, (int)a[0]);
        v[0] = (uint64_t)device;
        break;
    }
    case EN_OP_DEVICE_GET_ATTRIBUTE: {
        int value = 0;
        r = cu->cuDeviceGetAttribute(&value, (int)a[0], (CUdevice)a[1]);
        v[0] = (uint64_t)(int64_t)value;
        break;
    }
    case EN_OP_DEVICE_GET_NAME: {
        size_t length = a[0] > 0 && a[0] <= 4096 ? (size_t)a[0] : 1;
        char *name = calloc(1, length);
        if (!name) { r = CUDA_ERROR_OUT_OF_MEMORY; break; }
        r = cu->cuDeviceGetName(name, (int)length, (CUdevice)a[1]);
        name[length - 1] = 0;
        *reply = name;
        rs->data_bytes = r == CUDA_SUCCESS ? strlen(name) + 1 : 0;
        break;
    }
    case EN_OP_DEVICE_TOTAL_MEM: {
        size_t bytes = 0;
        r = cu->cuDeviceTotalMem(&bytes, (CUdevice)a[0]);
        v[0] = bytes;
        break;
    }
    case EN_OP_PRIMARY_CTX_RETAIN: {
        CUcontext c = NULL;
        r = cu->cuDevicePrimaryCtxRetain(&c, (CUdevice)a[0]);
        v[0] = WIRE(c);
        break;
    }
    case EN_OP_PRIMARY_CTX_RELEASE: r = cu->cuDevicePrimaryCtxRelease((CUdevice)a[0]); break;
    case EN_OP_CTX_SET_CURRENT: r = cu->cuCtxSetCurrent(HANDLE(CUcontext, a[0])); break;
    case EN_OP_CTX_SYNCHRONIZE: r = cu->cuCtxSynchronize(); break;
    case EN_OP_MEM_GET_INFO: {
        size_t free_bytes = 0, total = 0;
        r = cu->cuMemGetInfo(&free_bytes, &total);
        v[0] = free_bytes;
        v[1] = total;
        break;
    }
    case EN_OP_MODULE_LOAD_DATA: {
        CUmodule m = NULL;
        r = data ? cu->cuModuleLoadData(&m, data) : CUDA_ERROR_INVALID_IMAGE;
        v[0] = WIRE(m);
        break;
    }
    case EN_OP_MODULE_UNLOAD: r = cu->cuModuleUnload(HANDLE(CUmodule, a[0])); break;
    case EN_OP_MODULE_GET_FUNCTION: {
        /* the name arrives without its NUL: make it a C string */
        char *name = malloc((size_t)rq->data_bytes + 1);
        if (!name) { r = CUDA_ERROR_OUT_OF_MEMORY; break; }
        if (rq->data_bytes) memcpy(name, data, (size_t)rq->data_bytes);
        name[rq->data_bytes] = 0;
        CUfunction f = NULL;
        r = cu->cuModuleGetFunction(&f, HANDLE(CUmodule, a[0]), name);
        free(name);
        v[0] = WIRE(f);
        v[1] = EN_REMOTE_LAYOUT_UNKNOWN;
        if (r == CUDA_SUCCESS) {
            uint64_t *pairs = NULL;
            v[1] = param_layout(cu, f, &pairs);
            *reply = pairs;
            rs->data_bytes = v[1] == EN_REMOTE_LAYOUT_UNKNOWN ? 0 : v[1] * 2 * sizeof(uint64_t);
        }
        break;
    }
    case EN_OP_FUNC_GET_ATTRIBUTE: {
        int value = 0;
        r = cu->cuFuncGetAttribute(&value, (int)a[0], HANDLE(CUfunction, a[1]));
        v[0] = (uint64_t)(int64_t)value;
        break;
    }
    case EN_OP_FUNC_SET_ATTRIBUTE:
        r = cu->cuFuncSetAttribute(HANDLE(CUfunction, a[0]), (int)a[1], (int)a[2]);
        break;
    case EN_OP_LAUNCH_KERNEL: r = launch(cu, rq, data); break;
    case EN_OP_MEM_ALLOC: {
        CUdeviceptr p = 0;
        r = cu->cuMemAlloc(&p, (size_t)a[0]);
        v[0] = p;
        break;
    }
    case EN_OP_MEM_FREE: r = cu->cuMemFree(a[0]); break;
    case EN_OP_MEMCPY_HTOD:
        r = rq->data_bytes ? cu->cuMemcpyHtoD(a[0], data, (size_t)rq->data_bytes) : CUDA_SUCCESS;
        break;
    case EN_OP_MEMCPY_DTOH: {
        if (a[1] > EN_REMOTE_COPY_CHUNK) { r = CUDA_ERROR_INVALID_VALUE; break; }
        void *bytes = malloc(a[1] ? (size_t)a[1] : 1);
        if (!bytes) { r = CUDA_ERROR_OUT_OF_MEMORY; break; }
        r = a[1] ? cu->cuMemcpyDtoH(bytes, a[0], (size_t)a[1]) : CUDA_SUCCESS;
        *reply = bytes;
        rs->data_bytes = r == CUDA_SUCCESS ? a[1] : 0;
        break;
    }
    case EN_OP_MEMSET_D8: r = cu->cuMemsetD8(a[0], (unsigned char)a[1], (size_t)a[2]); break;
    case EN_OP_STREAM_CREATE: {
        CUstream s = NULL;
        r = cu->cuStreamCreate(&s, (unsigned)a[0]);
        v[0] = WIRE(s);
        break;
    }
    case EN_OP_STREAM_DESTROY: r = cu->cuStreamDestroy(HANDLE(CUstream, a[0])); break;
    case EN_OP_STREAM_SYNCHRONIZE: r = cu->cuStreamSynchronize(HANDLE(CUstream, a[0])); break;
    case EN_OP_STREAM_QUERY: r = cu->cuStreamQuery(HANDLE(CUstream, a[0])); break;
    case EN_OP_EVENT_CREATE: {
        CUevent e = NULL;
        r = cu->cuEventCreate(&e, (unsigned)a[0]);
        v[0] = WIRE(e);
        break;
    }
    case EN_OP_EVENT_DESTROY: r = cu->cuEventDestroy(HANDLE(CUevent, a[0])); break;
    case EN_OP_EVENT_RECORD: r = cu->cuEventRecord(HANDLE(CUevent, a[0]), HANDLE(CUstream, a[1])); break;
    case EN_OP_EVENT_SYNCHRONIZE: r = cu->cuEventSynchronize(HANDLE(CUevent, a[0])); break;
    case EN_OP_EVENT_ELAPSED_TIME: {
        float ms = 0;
        r = cu->cuEventElapsedTime(&ms, HANDLE(CUevent, a[0]), HANDLE(CUevent, a[1]));
        uint32_t bits;
        memcpy(&bits, &ms, sizeof bits);
        v[0] = bits;
        break;
    }
    }
    rs->result = r;
}

int en_cuda_worker_serve(int fd) {
    en_buf why = {0};
    const en_cuda_driver *cu = en_cuda_driver_load(&why);
    en_remote_response hello = {.values = {EN_REMOTE_MAGIC, EN_REMOTE_VERSION, cu && cu->cuFuncGetParamInfo}};
    hello.result = cu ? cu->cuInit(0) : CUDA_ERROR_NOT_INITIALIZED;
    hello.data_bytes = cu ? 0 : why.len;
    bool ok = respond(fd, &hello, why.data);
    en_buf_free(&why);
    if (!ok || !cu || hello.result != CUDA_SUCCESS) return 1;
    return en_cuda_worker_requests(fd, cu);
}

int en_cuda_worker_requests(int fd, const en_cuda_driver *cu) {
    bool ok;
    for (;;) {
        en_remote_request rq;
        if (!en_remote_read_all(fd, &rq, sizeof rq)) return 0; /* end of file: the library is done */
        if (rq.data_bytes > EN_REMOTE_MAX_DATA) return 1;
        unsigned char *data = NULL;
        if (rq.data_bytes) {
            data = malloc((size_t)rq.data_bytes);
            if (!data || !en_remote_read_all(fd, data, (size_t)rq.data_bytes)) {
                free(data);
                return 1;
            }
        }
        en_remote_response rs = {0};
        void *reply = NULL;
        execute(cu, &rq, data, &rs, &reply);
        ok = respond(fd, &rs, reply);
        free(reply);
        free(data);
        if (!ok) return 1;
    }
}
