/* fuzz_worker.c — libFuzzer target over the CUDA worker's request reader (src/cuda/worker.c,
 * remote_protocol.h): one input is the byte stream the library would send over the socket,
 * requests and their data, answered by en_cuda_worker_requests over a stub driver. Lengths,
 * op codes, launch parameter offsets and handles are all the fuzzer's: every input ends
 * with the loop returning (at end of file or a request it cannot read), never a crash, an
 * out-of-bounds access or a leak. The stub driver fails every call except the two that
 * take request bytes (a launch's parameters, a host-to-device copy), which read them all so
 * that ASan checks the bounds the worker computed. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cuda/api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STUB(name, sym, params) \
    static CUresult stub_##name params { return CUDA_ERROR_INVALID_VALUE; }
EN_CUDA_DRIVER_FUNCTIONS(STUB)
EN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(STUB)
#undef STUB
#define ENTRY(name, sym, params) .name = stub_##name,
static en_cuda_driver driver = {EN_CUDA_DRIVER_FUNCTIONS(ENTRY) EN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(ENTRY)};
#undef ENTRY

static volatile unsigned char sink;

static CUresult touch_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shared_bytes, CUstream s, void **params, void **extra) {
    /* the worker promises each parameter pointer lies inside the packed buffer; the stub
     * cannot know how many there are, so it reads the first, which every launch has room
     * for (the worker allocates at least one slot) */
    if (params && params[0]) sink ^= *(unsigned char *)params[0];
    return CUDA_SUCCESS;
}

static CUresult touch_copy(CUdeviceptr dst, const void *src, size_t bytes) {
    for (size_t i = 0; i < bytes; i++) sink ^= ((const unsigned char *)src)[i];
    return CUDA_SUCCESS;
}

typedef struct feed {
    int fd;
    const uint8_t *data;
    size_t size;
} feed;

/* writes the input, then reads every answer until the worker closes its end */
static void *feed_main(void *arg) {
    feed *f = arg;
    size_t at = 0;
    while (at < f->size) {
        ssize_t n = write(f->fd, f->data + at, f->size - at);
        if (n <= 0) break;
        at += (size_t)n;
    }
    shutdown(f->fd, SHUT_WR);
    char answer[4096];
    while (read(f->fd, answer, sizeof answer) > 0) {}
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    driver.cuLaunchKernel = touch_launch;
    driver.cuMemcpyHtoD = touch_copy;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return 0;
    feed f = {sv[0], data, size};
    pthread_t t;
    if (pthread_create(&t, NULL, feed_main, &f) != 0) {
        close(sv[0]);
        close(sv[1]);
        return 0;
    }
    en_cuda_worker_requests(sv[1], &driver);
    close(sv[1]); /* the feeder's reads end */
    pthread_join(t, NULL);
    close(sv[0]);
    return 0;
}
