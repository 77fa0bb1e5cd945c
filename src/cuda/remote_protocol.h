/* remote_protocol.h — the wire format between remote.c (the library's side) and worker.c
 * (enigma-cuda-worker, which owns the GPU). Defined once here so both sides agree.
 *
 * Framing. One AF_UNIX SOCK_STREAM socket, one request at a time, always answered:
 *   request   en_remote_request (fixed size), then exactly `data_bytes` bytes
 *   response  en_remote_response (fixed size), then exactly `data_bytes` bytes
 * Both ends are built from the same source for the same machine, so the structs travel in
 * the host's byte order and layout; `version` in the greeting catches a worker from another
 * build. The worker speaks first: a greeting (op-less response) whose values[0] is
 * EN_REMOTE_MAGIC, values[1] EN_REMOTE_VERSION, values[2] 1 when its driver has
 * cuFuncGetParamInfo, `result` what cuInit(0) returned there, and, when the driver could not
 * be loaded at all, the reason as data.
 *
 * Handles (CUcontext, CUmodule, CUfunction, CUstream, CUevent) are the worker's pointers
 * carried as uint64 and never dereferenced by the library; a CUdeviceptr is a uint64
 * already. Per op, what args[] hold and what comes back is written beside the op. */
#ifndef ENIGMA_CUDA_REMOTE_PROTOCOL_H
#define ENIGMA_CUDA_REMOTE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"

#define EN_REMOTE_MAGIC 0x656e6377u   /* "encw" */
#define EN_REMOTE_VERSION 1u
#define EN_REMOTE_COPY_CHUNK (1u << 20) /* the most bytes one copy request moves */
#define EN_REMOTE_MAX_DATA (1ull << 30) /* a request or response larger than this is a broken peer */
#define EN_REMOTE_MAX_PARAMS 4096       /* kernel parameters the worker reports at most */
#define EN_REMOTE_LAYOUT_UNKNOWN UINT64_MAX

/*          op                      args[]                               values[] / data back */
enum en_remote_op {
    EN_OP_INIT = 1,              /* flags                                   */
    EN_OP_DRIVER_GET_VERSION,    /*                                         v0 version */
    EN_OP_DEVICE_GET_COUNT,      /*                                         v0 count */
    EN_OP_DEVICE_GET,            /* ordinal                                 v0 device */
    EN_OP_DEVICE_GET_ATTRIBUTE,  /* attr, device                            v0 value */
    EN_OP_DEVICE_GET_NAME,       /* length, device                          data: the name */
    EN_OP_DEVICE_TOTAL_MEM,      /* device                                  v0 bytes */
    EN_OP_PRIMARY_CTX_RETAIN,    /* device                                  v0 context */
    EN_OP_PRIMARY_CTX_RELEASE,   /* device                                  */
    EN_OP_CTX_SET_CURRENT,       /* context                                 */
    EN_OP_CTX_SYNCHRONIZE,       /*                                         */
    EN_OP_MEM_GET_INFO,          /*                                         v0 free, v1 total */
    EN_OP_MODULE_LOAD_DATA,      /* data: the ELF image                     v0 module */
    EN_OP_MODULE_UNLOAD,         /* module                                  */
    EN_OP_MODULE_GET_FUNCTION,   /* module; data: the name (no NUL)         v0 function, v1 parameter
                                    count or EN_REMOTE_LAYOUT_UNKNOWN; data: count x (offset, size) as uint64 */
    EN_OP_FUNC_GET_ATTRIBUTE,    /* attr, function                          v0 value */
    EN_OP_FUNC_SET_ATTRIBUTE,    /* function, attr, value                   */
    EN_OP_LAUNCH_KERNEL,         /* function, grid x y z, block x y z, shared bytes, stream,
                                    parameter count n; data: n uint64 offsets, padded to 16
                                    bytes, then the packed parameter buffer */
    EN_OP_MEM_ALLOC,             /* bytes                                   v0 device pointer */
    EN_OP_MEM_FREE,              /* device pointer                          */
    EN_OP_MEMCPY_HTOD,           /* destination; data: the bytes (one chunk) */
    EN_OP_MEMCPY_DTOH,           /* source, bytes (one chunk)               data: the bytes */
    EN_OP_MEMSET_D8,             /* pointer, value, count                   */
    EN_OP_STREAM_CREATE,         /* flags                                   v0 stream */
    EN_OP_STREAM_DESTROY,        /* stream                                  */
    EN_OP_STREAM_SYNCHRONIZE,    /* stream                                  */
    EN_OP_EVENT_CREATE,          /* flags                                   v0 event */
    EN_OP_EVENT_DESTROY,         /* event                                   */
    EN_OP_EVENT_RECORD,          /* event, stream                           */
    EN_OP_EVENT_SYNCHRONIZE,     /* event                                   */
    EN_OP_EVENT_ELAPSED_TIME,    /* start event, end event                  v0 the float's bits */
    EN_OP_STREAM_QUERY,          /* stream                                  (NOT_READY while it runs) */
};
/* cuDevicePrimaryCtxReset has no op: the library replaces the whole worker instead (after
 * a fault the driver gives the poisoned process no new context). cuGetErrorString/Name
 * have none either: they are lookups the library answers itself. */

typedef struct en_remote_request {
    uint32_t op;          /* en_remote_op */
    uint32_t reserved;
    uint64_t args[10];
    uint64_t data_bytes;  /* bytes that follow */
} en_remote_request;

typedef struct en_remote_response {
    int32_t result;       /* the CUresult of the call in the worker */
    uint32_t reserved;
    uint64_t values[4];
    uint64_t data_bytes;  /* bytes that follow */
} en_remote_response;

/* remote_io.c: exactly n bytes through the socket, riding out EINTR; false when the peer
 * is gone or the socket broke (a send to a dead peer fails rather than raising SIGPIPE) */
EN_INTERNAL bool en_remote_read_all(int fd, void *buf, size_t n);
EN_INTERNAL bool en_remote_write_all(int fd, const void *buf, size_t n);

#endif
