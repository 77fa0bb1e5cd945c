/* enigma-cuda-worker — the process that owns the GPU for a device on the CUDA worker
 * (src/cuda/remote.c starts it; src/cuda/worker.c is its loop). Not meant to be run by hand.
 *
 * Needs: argv[1], the number of an inherited AF_UNIX stream socket.
 * Guarantees: keeps no other descriptor it inherited (a host program's pipe stays closable
 * while the worker lives), ignores SIGPIPE (a vanished library is an end of file, not a
 * signal), and exits when the socket ends. Its standard streams are /dev/null: it never
 * prints. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "cuda/api.h"

/* closes every descriptor above stderr but `keep` */
static void close_inherited(int keep) {
    DIR *dir = opendir("/proc/self/fd");
    if (!dir) return;
    int listing = dirfd(dir);
    int fds[256], count = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL && count < (int)EN_COUNT(fds);) {
        char *end = NULL;
        long fd = strtol(e->d_name, &end, 10);
        if (end && *end == 0 && fd > 2 && fd != keep && fd != listing) fds[count++] = (int)fd;
    }
    closedir(dir);
    for (int i = 0; i < count; i++) close(fds[i]);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    char *end = NULL;
    long fd = strtol(argv[1], &end, 10);
    if (!end || *end || fd < 0) return 2;
    signal(SIGPIPE, SIG_IGN);
    close_inherited((int)fd);
    return en_cuda_worker_serve((int)fd);
}
