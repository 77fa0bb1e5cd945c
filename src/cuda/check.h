/* check.h — the one way the cuda backend calls CUDA: EN_CU(lib, err, fn(args...)).
 *
 * `lib` is the driver table (en_cuda_driver) or the NVRTC table (en_nvrtc_lib); the macro
 * calls lib->fn(args...), and when the result is not success appends
 *     "<fn>(<args as written>) failed: <the library's own message> (<error name>)"
 * to `err`. It evaluates to the result code (0 on success), so callers can both test it
 * and look at which fault it was. Nothing in src/cuda calls a CUDA function any other way. */
#ifndef ENIGMA_CUDA_CHECK_H
#define ENIGMA_CUDA_CHECK_H

#include "api.h"

EN_INTERNAL int en_cu_report_driver(const en_cuda_driver *lib, int result, const char *call,
                                    en_buf *err);
EN_INTERNAL int en_cu_report_nvrtc(const en_nvrtc_lib *lib, int result, const char *call,
                                   en_buf *err);

#define EN_CU(lib, err, call)                                                                \
    _Generic((lib), const en_cuda_driver *: en_cu_report_driver,                             \
             en_cuda_driver *: en_cu_report_driver,                                          \
             const en_nvrtc_lib *: en_cu_report_nvrtc,                                       \
             en_nvrtc_lib *: en_cu_report_nvrtc)((lib), (lib)->call, #call, (err))

#endif
