/* remote_io.c — the socket reads and writes both ends of the CUDA worker protocol use
 * (remote_protocol.h): remote.c in the library, worker.c in enigma-cuda-worker.
 * Guarantees: a true return moved exactly n bytes; false means the peer is gone or the
 * socket broke, never a partial message left for the caller to resume. */
#include <errno.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "remote_protocol.h"

bool en_remote_read_all(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t got = recv(fd, p, n, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got;
        n -= (size_t)got;
    }
    return true;
}

bool en_remote_write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t put = send(fd, p, n, MSG_NOSIGNAL); /* a dead peer is an error, not SIGPIPE */
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        p += put;
        n -= (size_t)put;
    }
    return true;
}
