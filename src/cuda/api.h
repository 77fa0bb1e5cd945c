/* api.h — the slice of the CUDA driver API and of NVRTC that the cuda backend uses,
 * declared here rather than taken from cuda.h / nvrtc.h so that libenigma builds on
 * machines without the CUDA toolkit. Both libraries are opened with dlopen at first use
 * (dl.c) and every entry point is reached through the tables below.
 *
 * The values are NVIDIA's ABI (stable across releases); only what enigma calls is
 * declared. Functions that have a _v2 ABI are resolved by their _v2 symbol (cuda.h's own
 * #defines, as of CUDA 13); cuEventElapsedTime falls back to its first symbol on drivers
 * older than 12.8, the signature being the same. */
#ifndef ENIGMA_CUDA_API_H
#define ENIGMA_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"

/* ---- driver API types ------------------------------------------------------------- */
typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_OPERATING_SYSTEM = 304,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_NOT_READY = 600,
    /* faults that poison the context: after one, only a context reset helps */
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
};

/* CUdevice_attribute values */
enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/* CUfunction_attribute values */
enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
};

enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0 };

/* ---- the driver entry points enigma resolves (X(name, symbol, return, params)) ------- */
#define EN_CUDA_DRIVER_FUNCTIONS(X)                                                          \
    X(cuInit, "cuInit", (unsigned flags))                                                    \
    X(cuDriverGetVersion, "cuDriverGetVersion", (int *version))                              \
    X(cuGetErrorString, "cuGetErrorString", (CUresult r, const char **s))                    \
    X(cuGetErrorName, "cuGetErrorName", (CUresult r, const char **s))                        \
    X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                    \
    X(cuDeviceGet, "cuDeviceGet", (CUdevice * d, int ordinal))                               \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *v, int attr, CUdevice d))          \
    X(cuDeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice d))                 \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t * bytes, CUdevice d))                 \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext * c, CUdevice d))     \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice d))               \
    X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", (CUdevice d))                   \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext c))                                     \
    X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                          \
    X(cuMemGetInfo, "cuMemGetInfo_v2", (size_t * free_bytes, size_t * total_bytes))          \
    X(cuModuleLoadData, "cuModuleLoadData", (CUmodule * m, const void *image))               \
    X(cuModuleUnload, "cuModuleUnload", (CUmodule m))                                        \
    X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction * f, CUmodule m, const char *name)) \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", (int *v, int attr, CUfunction f))            \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction f, int attr, int value))         \
    X(cuLaunchKernel, "cuLaunchKernel",                                                      \
      (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,        \
       unsigned bz, unsigned shared_bytes, CUstream s, void **params, void **extra))         \
    X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr * p, size_t bytes))                          \
    X(cuMemFree, "cuMemFree_v2", (CUdeviceptr p))                                            \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr dst, const void *src, size_t bytes))     \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, CUdeviceptr src, size_t bytes))           \
    X(cuMemsetD8, "cuMemsetD8_v2", (CUdeviceptr p, unsigned char v, size_t n))               \
    X(cuStreamCreate, "cuStreamCreate", (CUstream * s, unsigned flags))                      \
    X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream s))                                   \
    X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream s))                              \
    X(cuStreamQuery, "cuStreamQuery", (CUstream s))                                          \
    X(cuEventCreate, "cuEventCreate", (CUevent * e, unsigned flags))                         \
    X(cuEventDestroy, "cuEventDestroy_v2", (CUevent e))                                      \
    X(cuEventRecord, "cuEventRecord", (CUevent e, CUstream s))                               \
    X(cuEventSynchronize, "cuEventSynchronize", (CUevent e))                                 \
    X(cuEventElapsedTime, "cuEventElapsedTime_v2|cuEventElapsedTime", (float *ms, CUevent a, CUevent b))

/* Entry points enigma uses where the driver has them: dl.c resolves them without failing
 * the table, and leaves the pointer NULL where the driver lacks the symbol. Callers test
 * the pointer first. cuFuncGetParamInfo (CUDA 12.4+) gives a kernel parameter's offset
 * and size in the parameter buffer; the worker process (worker.c) uses it to learn the
 * layout that remote.c must pack launch parameters into. */
#define EN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(X)                                                 \
    X(cuFuncGetParamInfo, "cuFuncGetParamInfo",                                              \
      (CUfunction f, size_t index, size_t *offset, size_t *size))

/* ---- NVRTC ------------------------------------------------------------------------- */
typedef int nvrtcResult; /* NVRTC_SUCCESS = 0 */
typedef struct _nvrtcProgram *nvrtcProgram;

#define EN_NVRTC_FUNCTIONS(X)                                                                \
    X(nvrtcVersion, "nvrtcVersion", (int *major, int *minor))                                \
    X(nvrtcGetErrorString, "nvrtcGetErrorString", (nvrtcResult r))                           \
    X(nvrtcCreateProgram, "nvrtcCreateProgram",                                              \
      (nvrtcProgram * p, const char *src, const char *name, int nheaders,                    \
       const char *const *headers, const char *const *include_names))                        \
    X(nvrtcDestroyProgram, "nvrtcDestroyProgram", (nvrtcProgram * p))                        \
    X(nvrtcCompileProgram, "nvrtcCompileProgram",                                            \
      (nvrtcProgram p, int nopts, const char *const *opts))                                  \
    X(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", (nvrtcProgram p, size_t *n))         \
    X(nvrtcGetProgramLog, "nvrtcGetProgramLog", (nvrtcProgram p, char *log))                 \
    X(nvrtcGetCUBINSize, "nvrtcGetCUBINSize", (nvrtcProgram p, size_t *n))                   \
    X(nvrtcGetCUBIN, "nvrtcGetCUBIN", (nvrtcProgram p, char *cubin))

/* nvrtcGetErrorString returns a string, the others a status */
typedef const char *(*en_nvrtcGetErrorString_fn)(nvrtcResult r);

#define EN_DECLARE_FN(name, sym, params) CUresult (*name) params;
typedef struct en_cuda_driver {
    EN_CUDA_DRIVER_FUNCTIONS(EN_DECLARE_FN)
    EN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(EN_DECLARE_FN) /* NULL where the driver lacks them */
} en_cuda_driver;
#undef EN_DECLARE_FN

#define EN_DECLARE_FN(name, sym, params) nvrtcResult (*name) params;
typedef struct en_nvrtc_lib {
    EN_NVRTC_FUNCTIONS(EN_DECLARE_FN)
    char path[512]; /* where it was found, for messages */
} en_nvrtc_lib;
#undef EN_DECLARE_FN

/* dl.c: load on first use (thread-safe, once per process). NULL with the reason in `err`
 * ("libcuda.so.1 not found: ..."), the same reason on every later call. */
EN_INTERNAL const en_cuda_driver *en_cuda_driver_load(en_buf *err);
EN_INTERNAL const en_nvrtc_lib *en_nvrtc_load(en_buf *err);

/* remote.c: the same table, every call forwarded to a worker process that owns the GPU
 * (enigma-cuda-worker, worker.c), so that a fault poisons the worker and not this process.
 * Starts the worker when none runs; NULL with the reason in `err` (where it looked for
 * the executable, or why it did not start). Its cuDevicePrimaryCtxReset replaces a worker
 * that faulted or died by a fresh process; handles of a replaced worker are refused with
 * CUDA_ERROR_CONTEXT_IS_DESTROYED. */
EN_INTERNAL const en_cuda_driver *en_cuda_remote_driver(en_buf *err);
/* stops the worker when no primary-context retain is outstanding in it (a device that
 * failed to open leaves none); nothing when no worker runs */
EN_INTERNAL void en_cuda_remote_stop_if_idle(void);
/* the worker is running a kernel that must not finish (over its time limit, cancelled): it
 * is killed now, and the next cuDevicePrimaryCtxReset starts a fresh process, as after a fault */
EN_INTERNAL void en_cuda_remote_abandon(void);
/* worker.c: the worker process's loop over the socket `fd` (remote_protocol.h); returns the
 * process's exit code: 0 at the socket's end of file */
EN_INTERNAL int en_cuda_worker_serve(int fd);
/* the request loop alone, on a driver already loaded (en_cuda_worker_serve's second half;
 * fuzz/fuzz_worker.c drives it with a stub driver) */
EN_INTERNAL int en_cuda_worker_requests(int fd, const en_cuda_driver *cu);

#endif
