/* stub.c — STUB: the backends until their owners land them (src/cpu/device.c,
 * src/cuda/device.c). A vtable without functions reads as "not built in". */
#include "backend.h"
const en_backend en_cpu_backend = {.name = "cpu"};
const en_backend en_cuda_backend = {.name = "cuda"};
