// check.h — the error checks of the bench/cuda programs: each call that can fail goes
// through one of these, which print where and why and exit (these are programs, not the
// library). CB takes cuBLAS and cuBLASLt statuses, EN enigma's; each is defined where its
// header was included first.
#pragma once
#include <cstdio>
#include <cstdlib>

// `call` returned status s_ of type T, and `bad` holds: say where and why (a printf format
// and its values, which may read s_), and exit
#define BENCH_CHECK_(T, call, bad, ...)                                                      \
    do {                                                                                     \
        T s_ = (call);                                                                       \
        if (bad) {                                                                           \
            fprintf(stderr, "%s:%d: %s failed: ", __FILE__, __LINE__, #call);                \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define CK(call) BENCH_CHECK_(cudaError_t, call, s_ != cudaSuccess, "%s", cudaGetErrorString(s_))

#ifdef CUBLAS_VER_MAJOR
#define CB(call) BENCH_CHECK_(cublasStatus_t, call, s_ != CUBLAS_STATUS_SUCCESS, "%s", cublasGetStatusString(s_))
#endif

#ifdef ENIGMA_H
#define EN(call)                                                                             \
    BENCH_CHECK_(enigma_status, call, s_ != ENIGMA_OK, "%s: %s", enigma_status_name(s_), enigma_last_error())
#endif
