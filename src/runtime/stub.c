/* stub.c — STUB: backends and the check sink until their owners land them. */
#include "backend.h"
const en_backend en_cpu_backend = {.name = "cpu"};
const en_backend en_cuda_backend = {.name = "cuda"};
void en_check_report(en_check_sink *s, enigma_check_kind kind, en_loc loc, const char *fmt, ...) { (void)s; (void)kind; (void)loc; (void)fmt; }
