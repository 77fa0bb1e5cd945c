/* stub.c — STUB: the cuda backend until its owner lands it (src/cuda/device.c). A vtable
 * without functions reads as "not built in". The cpu backend is src/cpu/device.c. */
#include "backend.h"
const en_backend en_cuda_backend = {.name = "cuda"};
