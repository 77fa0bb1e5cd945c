/* fuzz_npy.c — libFuzzer target over the CLI's .npy reader (tools/npy.c): one input is one
 * file's bytes, handed to npy_read through a memory file. A header may lie about the
 * shape, the dtype or the length: every input ends in an array or a message, never a crash,
 * a leak or an allocation the file cannot back. Built by run.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz.npy", MFD_CLOEXEC);
    if (fd < 0) return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    npy_array a;
    if (npy_read(path, &a, err, sizeof err)) {
        /* what the reader promises: count items of itemsize bytes, all read */
        if (a.count * a.itemsize != a.bytes) __builtin_trap();
        volatile unsigned char sum = 0;
        for (size_t i = 0; i < a.bytes; i++) sum += ((unsigned char *)a.data)[i];
        npy_free(&a);
    } else if (!err[0]) {
        __builtin_trap(); /* a failure always says why */
    }
    close(fd);
    return 0;
}
