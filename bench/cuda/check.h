// check.h — the error checks of the bench/cuda programs: each call that can fail goes
// through one of these, which print where and why and exit (these are programs, not the
// library). CB takes cuBLAS and cuBLASLt statuses, EN enigma's; each is defined where its
// header was included first.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                             \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorString(e_));                                                 \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#ifdef CUBLAS_VER_MAJOR
#define CB(call)                                                                             \
    do {                                                                                     \
        cublasStatus_t s_ = (call);                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                    cublasGetStatusString(s_));                                              \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)
#endif

#ifdef ENIGMA_H
#define EN(call)                                                                             \
    do {                                                                                     \
        enigma_status s_ = (call);                                                           \
        if (s_ != ENIGMA_OK) {                                                               \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,          \
                    enigma_status_name(s_), enigma_last_error());                            \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)
#endif
