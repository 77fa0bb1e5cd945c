/* remote.c — a second implementation of the CUDA driver table (api.h: en_cuda_driver) that
 * forwards every call to a worker process owning the GPU (enigma-cuda-worker, worker.c).
 *
 * Why: after a sticky fault (illegal address, trap) the CUDA driver gives the faulting
 * process no new context, ever (580.x, CUDA 13: every context creation fails with the
 * fault's error; NVIDIA says to restart the process). A context that lives in a child
 * process can be thrown away with the child: this table's cuDevicePrimaryCtxReset kills the
 * worker and starts a fresh one, so each reset is a new process and faults are recoverable
 * as often as they happen. driver.c switches a device to this table after a fault (or from
 * the start with ENIGMA_CUDA_ISOLATE=1).
 *
 * Needs: the enigma-cuda-worker executable, found at $ENIGMA_CUDA_WORKER, else beside the
 * loaded libenigma (the same folder, then <folder>/../libexec/enigma/), else at the install
 * path compiled in; a driver there that the worker can load.
 * Guarantees:
 *   - every entry point of the table is set; any thread may call (one process-wide mutex
 *     around each request/response round trip, remote_protocol.h);
 *   - the worker starts on first use, with stdin/stdout/stderr on /dev/null and only its
 *     socket inherited; the library's end of the socket is close-on-exec, so other children
 *     of the host program never keep the worker alive;
 *   - if the worker dies or the socket breaks, the call returns
 *     CUDA_ERROR_CONTEXT_IS_DESTROYED (a sticky fault for driver.c, whose next step is a
 *     reset, i.e. a fresh worker) and so does every later call until that reset;
 *   - the worker is reaped: on reset, when the last primary-context retain in it is
 *     released (device close), and by en_cuda_remote_stop_if_idle; no zombie is left;
 *   - cuCtxSetCurrent costs no round trip: the context each thread wants is kept per
 *     thread, and sent ahead of a call only when it differs from the worker's current one;
 *   - cuGetErrorString/Name are answered here (through the in-process driver when it can be
 *     loaded, else from a small table). A failure made here (the worker died, could not
 *     start, a launch whose parameter layout is unknown) is explained by the next
 *     cuGetErrorString of that code on the same thread, which names the cause;
 *   - cuLaunchKernel learns each function's parameter layout (offsets and sizes, read by
 *     the worker with cuFuncGetParamInfo at cuModuleGetFunction) and sends the packed
 *     parameter bytes; without cuFuncGetParamInfo (drivers before CUDA 12.4) launches fail
 *     with a message that says so. `extra` launch parameters are not supported.
 *   - cuDevicePrimaryCtxReset replaces a worker that died or reported a sticky fault; a
 *     running, healthy worker is already fresh (another device's reset replaced the old
 *     one) and is kept;
 *   - handles carry the epoch of their worker: one of a replaced worker is refused here
 *     with CUDA_ERROR_CONTEXT_IS_DESTROYED, never sent to the new worker's driver.
 * Several devices in one process share the worker, so a fault on one ends the others'
 * contexts too (as a primary-context reset always did in-process): each learns it at its
 * next call, which fails as a fault, and its reset then joins the new worker. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "remote_protocol.h"

extern char **environ;

#define WORKER_NAME "enigma-cuda-worker"

/* a function's parameter layout, as the worker read it */
typedef struct function_layout {
    uint64_t function, module;
    uint64_t count;   /* EN_REMOTE_LAYOUT_UNKNOWN when the worker's driver cannot say */
    uint64_t *pairs;  /* count x (offset, size) */
} function_layout;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* the worker, all under `lock` */
static enum { WORKER_NONE, WORKER_RUNNING, WORKER_DEAD } state;
static int sock = -1;
static pid_t worker_pid;
static uint64_t worker_ctx;    /* the context current in the worker (as a handle, below) */
static int worker_retains;     /* primary-context retains not yet released in this worker */
static bool poisoned;          /* the worker reported a sticky fault: only a new one helps */
static unsigned epoch;         /* 1..255, a new one per worker started (handles, below) */
static char dead_reason[256];  /* why the worker is WORKER_DEAD */
static function_layout *layouts;
static size_t layout_count, layout_cap;

/* per thread: the context driver.c made current, and the explanation of the last failure
 * made here (see the top of the file) */
static _Thread_local uint64_t wanted_ctx;
static _Thread_local CUresult detail_code;
static _Thread_local char detail[768];

#define HANDLE(T, v) ((T)(uintptr_t)(v))
#define WIRE(h) ((uint64_t)(uintptr_t)(h))

/* Handles given out carry the epoch of the worker they belong to in their top byte (the
 * worker's pointers are user-space addresses, whose top byte is zero on Linux), so that a
 * handle of a replaced worker is refused here (CUDA_ERROR_CONTEXT_IS_DESTROYED) instead of
 * reaching a new worker's driver as a wild pointer. exchange() strips and adds the tags,
 * by the tables below; everything else in this file sees handles only as tagged. */
#define EPOCH_SHIFT 56
static uint64_t tag(uint64_t raw) { return raw && !(raw >> EPOCH_SHIFT) ? raw | (uint64_t)epoch << EPOCH_SHIFT : raw; }
static bool untag(uint64_t handle, uint64_t *raw) {
    *raw = handle & ((1ull << EPOCH_SHIFT) - 1);
    return handle == 0 || handle >> EPOCH_SHIFT == epoch;
}

/* per op: which args[] are handles (bit i for args[i]), and whether values[0] is one */
static const uint16_t handle_args[] = {
    [EN_OP_CTX_SET_CURRENT] = 1,       [EN_OP_MODULE_UNLOAD] = 1,     [EN_OP_MODULE_GET_FUNCTION] = 1,
    [EN_OP_FUNC_GET_ATTRIBUTE] = 2,    [EN_OP_FUNC_SET_ATTRIBUTE] = 1, [EN_OP_LAUNCH_KERNEL] = 1 | 1 << 8,
    [EN_OP_STREAM_DESTROY] = 1,        [EN_OP_STREAM_SYNCHRONIZE] = 1, [EN_OP_EVENT_DESTROY] = 1,
    [EN_OP_EVENT_RECORD] = 3,          [EN_OP_EVENT_SYNCHRONIZE] = 1,  [EN_OP_EVENT_ELAPSED_TIME] = 3,
    [EN_OP_STREAM_QUERY] = 1,
};
static const bool returns_handle[] = {
    [EN_OP_PRIMARY_CTX_RETAIN] = true, [EN_OP_MODULE_LOAD_DATA] = true, [EN_OP_MODULE_GET_FUNCTION] = true,
    [EN_OP_STREAM_CREATE] = true,      [EN_OP_EVENT_CREATE] = true,
};

/* the faults after which the worker's process has no working context (driver.c's list) */
static bool is_sticky(CUresult r) {
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR: case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC: case CUDA_ERROR_LAUNCH_TIMEOUT: case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return true;
    default:
        return false;
    }
}

static CUresult fail_with(CUresult r, const char *fmt, ...) EN_PRINTF(2, 3);
static CUresult fail_with(CUresult r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    detail_code = r;
    return r;
}

/* ---- finding and starting the worker ------------------------------------------------- */
static bool find_worker(char *path, size_t size, en_buf *why) {
    const char *env = getenv("ENIGMA_CUDA_WORKER");
    if (env && *env) {
        snprintf(path, size, "%s", env);
        if (access(path, X_OK) == 0) return true;
        en_buf_printf(why, "the CUDA worker executable was not found: ENIGMA_CUDA_WORKER=%s (%s)", env,
                      strerror(errno));
        return false;
    }
    /* the folder of the loaded libenigma (or of the program it is linked into) */
    char self[PATH_MAX] = "";
    Dl_info info;
    if (dladdr(&lock, &info) && info.dli_fname && strchr(info.dli_fname, '/')) { /* any object of ours */
        if (!realpath(info.dli_fname, self)) snprintf(self, sizeof self, "%s", info.dli_fname);
    } else {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = 0;
    }
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    char candidates[3][PATH_MAX + 64];
    int count = 0;
    if (slash) {
        snprintf(candidates[count++], sizeof candidates[0], "%s/" WORKER_NAME, self);
        snprintf(candidates[count++], sizeof candidates[0], "%s/../libexec/enigma/" WORKER_NAME, self);
    }
#ifdef ENIGMA_CUDA_WORKER_INSTALL_PATH
    snprintf(candidates[count++], sizeof candidates[0], "%s", ENIGMA_CUDA_WORKER_INSTALL_PATH);
#endif
    for (int i = 0; i < count; i++) {
        size_t len = strlen(candidates[i]);
        if (len < size && access(candidates[i], X_OK) == 0) {
            memcpy(path, candidates[i], len + 1);
            return true;
        }
    }
    en_buf_puts(why, "the CUDA worker executable " WORKER_NAME " was not found: looked at ");
    for (int i = 0; i < count; i++) en_buf_printf(why, "%s%s", i ? ", " : "", candidates[i]);
    en_buf_puts(why, " (set ENIGMA_CUDA_WORKER to its path)");
    return false;
}

static void describe_status(int status, char *out, size_t size) {
    if (WIFEXITED(status)) snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) snprintf(out, size, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else snprintf(out, size, "stopped");
}

static void reap(pid_t pid) {
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
}

/* Waits up to `ms` milliseconds for the worker to end: REAPED (its *status is set), NOT_OURS
 * (it is no child of ours any more: a host program that ignores SIGCHLD reaped it, and its
 * pid may belong to someone else now, so it must not be killed) or ALIVE. */
enum { ALIVE, REAPED, NOT_OURS };
static int wait_for_exit(pid_t pid, int ms, int *status) {
    for (int waited = 0;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid) return REAPED;
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return NOT_OURS;
        if (waited++ >= ms) return ALIVE;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

static void forget_layouts(void) {
    for (size_t i = 0; i < layout_count; i++) free(layouts[i].pairs);
    layout_count = 0;
}

/* ends the worker (lock held): `gently` closes its socket and gives it two seconds to see
 * the end of file and exit, else (and after that) SIGKILL; always reaped */
static void stop_worker(bool gently) {
    if (sock >= 0) close(sock);
    sock = -1;
    int status;
    if (worker_pid > 0 && wait_for_exit(worker_pid, gently ? 2000 : 0, &status) == ALIVE) {
        kill(worker_pid, SIGKILL);
        reap(worker_pid);
    }
    worker_pid = 0;
    worker_ctx = 0;
    worker_retains = 0;
    forget_layouts();
    state = WORKER_NONE;
}

/* the socket broke mid-call (lock held): find out what became of the worker, reap it */
static CUresult worker_died(const char *during) {
    char how[128] = "stopped answering and was killed";
    int status = 0;
    if (worker_pid > 0) {
        /* its socket may close a moment before it can be reaped: give it a second */
        int outcome = wait_for_exit(worker_pid, 1000, &status);
        if (outcome == REAPED) describe_status(status, how, sizeof how);
        else if (outcome == NOT_OURS) snprintf(how, sizeof how, "ended");
        else {
            kill(worker_pid, SIGKILL);
            reap(worker_pid);
        }
    }
    snprintf(dead_reason, sizeof dead_reason, "the CUDA worker process (pid %d) %s during %s", (int)worker_pid,
             how, during);
    worker_pid = 0;
    stop_worker(false);
    state = WORKER_DEAD;
    return fail_with(CUDA_ERROR_CONTEXT_IS_DESTROYED, "%s; its context and memory are gone", dead_reason);
}

/* a fresh worker (lock held, none running): spawned, greeted, cuInit'ed */
static bool start_worker(en_buf *why) {
    char path[PATH_MAX + 64];
    if (!find_worker(path, sizeof path, why)) return false;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        en_buf_printf(why, "cannot start the CUDA worker: socketpair: %s", strerror(errno));
        return false;
    }
    /* the worker's end moves to a fixed descriptor, which the dup2 leaves inheritable */
    int target = sv[1] == 3 ? 4 : 3;
    char fd_arg[16];
    snprintf(fd_arg, sizeof fd_arg, "%d", target);
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], target);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none); /* not the calling thread's mask */
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    char *argv[] = {path, fd_arg, NULL};
    pid_t pid = 0;
    int r = posix_spawn(&pid, path, &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(sv[1]);
    if (r != 0) {
        close(sv[0]);
        en_buf_printf(why, "cannot start the CUDA worker %s: %s", path, strerror(r));
        return false;
    }
    sock = sv[0];
    worker_pid = pid;
    en_remote_response hello;
    if (!en_remote_read_all(sock, &hello, sizeof hello)) {
        int status = 0;
        char how[128] = "closed its socket";
        if (waitpid(pid, &status, 0) == pid) describe_status(status, how, sizeof how);
        en_buf_printf(why, "the CUDA worker %s %s before greeting", path, how);
        worker_pid = 0;
        stop_worker(false);
        return false;
    }
    char reason[512] = "";
    if (hello.data_bytes > 0) {
        size_t keep = hello.data_bytes < sizeof reason - 1 ? (size_t)hello.data_bytes : sizeof reason - 1;
        if (!en_remote_read_all(sock, reason, keep)) keep = 0;
        reason[keep] = 0;
    }
    if (hello.values[0] != EN_REMOTE_MAGIC || hello.values[1] != EN_REMOTE_VERSION) {
        en_buf_printf(why, "%s is not a CUDA worker of this enigma build (protocol %llu, want %u)", path,
                      (unsigned long long)hello.values[1], EN_REMOTE_VERSION);
        stop_worker(false);
        return false;
    }
    if (hello.result != CUDA_SUCCESS || reason[0]) {
        if (reason[0]) en_buf_printf(why, "the CUDA worker %s cannot load the driver: %s", path, reason);
        else en_buf_printf(why, "cuInit(0) failed in the CUDA worker %s (CUDA error %d)", path, hello.result);
        stop_worker(false);
        return false;
    }
    state = WORKER_RUNNING;
    poisoned = false;
    epoch = epoch % 255 + 1;
    dead_reason[0] = 0;
    return true;
}

/* ---- one round trip -------------------------------------------------------------------- */
/* sends `rq` (+ data) to the running worker, receives the response (+ up to out_cap bytes
 * into out; a longer answer is read and dropped). Lock held. */
static CUresult round_trip(en_remote_request *rq, const void *data, en_remote_response *rs, void *out,
                           size_t out_cap) {
    if (!en_remote_write_all(sock, rq, sizeof *rq) || (rq->data_bytes && !en_remote_write_all(sock, data, (size_t)rq->data_bytes)) ||
        !en_remote_read_all(sock, rs, sizeof *rs) || rs->data_bytes > EN_REMOTE_MAX_DATA)
        return worker_died("a call");
    size_t keep = rs->data_bytes < out_cap ? (size_t)rs->data_bytes : out_cap;
    if (keep && !en_remote_read_all(sock, out, keep)) return worker_died("a call");
    for (uint64_t left = rs->data_bytes - keep; left > 0;) {
        char sink[4096];
        size_t n = left < sizeof sink ? (size_t)left : sizeof sink;
        if (!en_remote_read_all(sock, sink, n)) return worker_died("a call");
        left -= n;
    }
    if (is_sticky(rs->result)) poisoned = true;
    return rs->result;
}

/* one call (lock held): a dead worker refuses it until a reset, a stopped one starts, and
 * when `needs_ctx` (the call acts on the current context) this thread's context is made
 * the worker's current one first */
static CUresult exchange(en_remote_request *rq, const void *data, en_remote_response *rs, void *out,
                         size_t out_cap, bool needs_ctx) {
    if (state == WORKER_DEAD)
        return fail_with(CUDA_ERROR_CONTEXT_IS_DESTROYED, "%s; its context and memory are gone (a reset starts a fresh worker)",
                         dead_reason);
    if (state == WORKER_NONE) { /* first use, or the last device let go of the worker */
        en_buf why = {0};
        bool ok = start_worker(&why);
        if (!ok) fail_with(CUDA_ERROR_OPERATING_SYSTEM, "%s", why.data ? why.data : "cannot start the CUDA worker");
        en_buf_free(&why);
        if (!ok) return CUDA_ERROR_OPERATING_SYSTEM;
    }
    static const char stale[] = "a handle of a CUDA worker process that has been replaced since (its context "
                                "and memory are gone)";
    en_remote_request sent = *rq;
    uint16_t handles = sent.op < EN_COUNT(handle_args) ? handle_args[sent.op] : 0;
    for (int i = 0; i < (int)EN_COUNT(sent.args); i++)
        if (handles >> i & 1 && !untag(sent.args[i], &sent.args[i]))
            return fail_with(CUDA_ERROR_CONTEXT_IS_DESTROYED, "%s", stale);
    if (needs_ctx && worker_ctx != wanted_ctx) {
        en_remote_request set = {.op = EN_OP_CTX_SET_CURRENT};
        if (!untag(wanted_ctx, &set.args[0])) return fail_with(CUDA_ERROR_CONTEXT_IS_DESTROYED, "%s", stale);
        en_remote_response got;
        CUresult r = round_trip(&set, NULL, &got, NULL, 0);
        if (r != CUDA_SUCCESS) return r;
        worker_ctx = wanted_ctx;
    }
    CUresult r = round_trip(&sent, data, rs, out, out_cap);
    if (r == CUDA_SUCCESS && sent.op < EN_COUNT(returns_handle) && returns_handle[sent.op])
        rs->values[0] = tag(rs->values[0]);
    return r;
}

/* the common shape: one request, the result, values into rs (lock taken here) */
static CUresult call(enum en_remote_op op, bool needs_ctx, uint64_t a0, uint64_t a1, uint64_t a2,
                     en_remote_response *rs) {
    en_remote_request rq = {.op = op, .args = {a0, a1, a2}};
    en_remote_response local;
    if (!rs) rs = &local;
    memset(rs, 0, sizeof *rs);
    detail_code = 0;
    pthread_mutex_lock(&lock);
    CUresult r = exchange(&rq, NULL, rs, NULL, 0, needs_ctx);
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---- the table's entry points --------------------------------------------------------- */
static CUresult r_cuInit(unsigned flags) { return call(EN_OP_INIT, false, flags, 0, 0, NULL); }

static CUresult r_cuDriverGetVersion(int *version) {
    en_remote_response rs;
    CUresult r = call(EN_OP_DRIVER_GET_VERSION, false, 0, 0, 0, &rs);
    if (r == CUDA_SUCCESS) *version = (int)rs.values[0];
    return r;
}

/* where the in-process driver cannot be loaded: the codes enigma meets, by name */
static const struct { CUresult code; const char *name, *message; } fallback_errors[] = {
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

static const en_cuda_driver *in_process(void) {
    en_buf ignored = {0};
    const en_cuda_driver *local = en_cuda_driver_load(&ignored);
    en_buf_free(&ignored);
    return local;
}

/* the fallback table's entry for `r`, NULL when it has none */
static const char *fallback_error(CUresult r, bool name) {
    for (size_t i = 0; i < EN_COUNT(fallback_errors); i++)
        if (fallback_errors[i].code == r) return name ? fallback_errors[i].name : fallback_errors[i].message;
    return NULL;
}

static CUresult r_cuGetErrorString(CUresult r, const char **s) {
    if (r == detail_code && detail[0]) {
        *s = detail;
        return CUDA_SUCCESS;
    }
    const en_cuda_driver *local = in_process();
    if (local && local->cuGetErrorString(r, s) == CUDA_SUCCESS && *s) return CUDA_SUCCESS;
    *s = fallback_error(r, false);
    if (!*s) *s = "unknown CUDA error";
    return CUDA_SUCCESS;
}

static CUresult r_cuGetErrorName(CUresult r, const char **s) {
    const en_cuda_driver *local = in_process();
    if (local && local->cuGetErrorName(r, s) == CUDA_SUCCESS && *s) return CUDA_SUCCESS;
    *s = fallback_error(r, true);
    if (!*s) *s = "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
}

static CUresult r_cuDeviceGetCount(int *count) {
    en_remote_response rs;
    CUresult r = call(EN_OP_DEVICE_GET_COUNT, false, 0, 0, 0, &rs);
    if (r == CUDA_SUCCESS) *count = (int)rs.values[0];
    return r;
}

static CUresult r_cuDeviceGet(CUdevice *d, int ordinal) {
    en_remote_response rs;
    CUresult r = call(EN_OP_DEVICE_GET, false, (uint64_t)ordinal, 0, 0, &rs);
    if (r == CUDA_SUCCESS) *d = (CUdevice)rs.values[0];
    return r;
}

static CUresult r_cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    en_remote_response rs;
    CUresult r = call(EN_OP_DEVICE_GET_ATTRIBUTE, false, (uint64_t)attr, (uint64_t)d, 0, &rs);
    if (r == CUDA_SUCCESS) *v = (int)(int64_t)rs.values[0];
    return r;
}

static CUresult r_cuDeviceGetName(char *name, int len, CUdevice d) {
    if (len <= 0) return CUDA_ERROR_INVALID_VALUE;
    en_remote_request rq = {.op = EN_OP_DEVICE_GET_NAME, .args = {(uint64_t)len, (uint64_t)d}};
    en_remote_response rs = {0};
    detail_code = 0;
    memset(name, 0, (size_t)len);
    pthread_mutex_lock(&lock);
    CUresult r = exchange(&rq, NULL, &rs, name, (size_t)len, false);
    pthread_mutex_unlock(&lock);
    name[len - 1] = 0;
    return r;
}

static CUresult r_cuDeviceTotalMem(size_t *bytes, CUdevice d) {
    en_remote_response rs;
    CUresult r = call(EN_OP_DEVICE_TOTAL_MEM, false, (uint64_t)d, 0, 0, &rs);
    if (r == CUDA_SUCCESS) *bytes = (size_t)rs.values[0];
    return r;
}

static CUresult r_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
    en_remote_request rq = {.op = EN_OP_PRIMARY_CTX_RETAIN, .args = {(uint64_t)d}};
    en_remote_response rs = {0};
    detail_code = 0;
    pthread_mutex_lock(&lock);
    CUresult r = exchange(&rq, NULL, &rs, NULL, 0, false);
    if (r == CUDA_SUCCESS) {
        worker_retains++;
        *c = HANDLE(CUcontext, rs.values[0]);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* the last release of the worker's retains also ends the worker (a closed device leaves
 * no process behind); a release with none outstanding (its worker was replaced) has
 * nothing left to release */
static CUresult r_cuDevicePrimaryCtxRelease(CUdevice d) {
    en_remote_request rq = {.op = EN_OP_PRIMARY_CTX_RELEASE, .args = {(uint64_t)d}};
    en_remote_response rs = {0};
    detail_code = 0;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    if (state == WORKER_RUNNING && worker_retains > 0) {
        r = exchange(&rq, NULL, &rs, NULL, 0, false);
        if (r == CUDA_SUCCESS && --worker_retains == 0) stop_worker(true);
    } else if (state == WORKER_DEAD) {
        stop_worker(false); /* already reaped: forget it, so the next use starts afresh */
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* A fresh worker process: the only reset that gives a context back after a sticky fault.
 * A worker that is running and has reported no sticky fault is fresh already (another
 * device's reset replaced the one this device's handles belonged to): it is kept, so that
 * devices sharing the worker do not end each other's new contexts in turn. */
static CUresult r_cuDevicePrimaryCtxReset(CUdevice d) {
    (void)d;
    detail_code = 0;
    en_buf why = {0};
    pthread_mutex_lock(&lock);
    bool ok = state == WORKER_RUNNING && !poisoned;
    if (!ok) {
        stop_worker(false);
        ok = start_worker(&why);
    }
    pthread_mutex_unlock(&lock);
    CUresult r = ok ? CUDA_SUCCESS
                    : fail_with(CUDA_ERROR_OPERATING_SYSTEM, "%s", why.data ? why.data : "cannot start the CUDA worker");
    en_buf_free(&why);
    return r;
}

static CUresult r_cuCtxSetCurrent(CUcontext c) {
    wanted_ctx = WIRE(c); /* sent ahead of this thread's next call that needs it */
    return CUDA_SUCCESS;
}

static CUresult r_cuCtxSynchronize(void) { return call(EN_OP_CTX_SYNCHRONIZE, true, 0, 0, 0, NULL); }

static CUresult r_cuMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    en_remote_response rs;
    CUresult r = call(EN_OP_MEM_GET_INFO, true, 0, 0, 0, &rs);
    if (r == CUDA_SUCCESS) {
        *free_bytes = (size_t)rs.values[0];
        *total_bytes = (size_t)rs.values[1];
    }
    return r;
}

static uint64_t read_u64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The bytes of an ELF64 image, which cuModuleLoadData takes without a size: the furthest
 * end of the section and program header tables and of every section with file contents.
 * 0 when it is not an ELF64 image (a PTX text or a fatbin, which this table does not carry). */
static size_t elf_image_size(const unsigned char *image) {
    if (memcmp(image, "\x7f" "ELF", 4) != 0 || image[4] != 2 /* ELFCLASS64 */) return 0;
    uint16_t phentsize, phnum, shentsize, shnum;
    memcpy(&phentsize, image + 0x36, 2);
    memcpy(&phnum, image + 0x38, 2);
    memcpy(&shentsize, image + 0x3a, 2);
    memcpy(&shnum, image + 0x3c, 2);
    uint64_t phoff = read_u64(image + 0x20), shoff = read_u64(image + 0x28);
    uint64_t end = 64; /* the ELF header */
    if (phoff + (uint64_t)phnum * phentsize > end) end = phoff + (uint64_t)phnum * phentsize;
    if (shoff + (uint64_t)shnum * shentsize > end) end = shoff + (uint64_t)shnum * shentsize;
    if (shentsize < 0x28 || shoff > EN_REMOTE_MAX_DATA) return shnum ? 0 : (size_t)end;
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = image + shoff + (uint64_t)i * shentsize;
        uint32_t type;
        memcpy(&type, sh + 4, 4);
        if (type == 8 /* SHT_NOBITS: no bytes in the file */) continue;
        uint64_t offset = read_u64(sh + 0x18), size = read_u64(sh + 0x20);
        if (offset + size > end) end = offset + size;
    }
    return end > EN_REMOTE_MAX_DATA ? 0 : (size_t)end;
}

static CUresult r_cuModuleLoadData(CUmodule *m, const void *image) {
    detail_code = 0;
    size_t size = image ? elf_image_size(image) : 0;
    if (size == 0)
        return fail_with(CUDA_ERROR_INVALID_IMAGE, "the CUDA worker loads ELF cubins only, and this image is not one");
    en_remote_request rq = {.op = EN_OP_MODULE_LOAD_DATA, .data_bytes = size};
    en_remote_response rs = {0};
    pthread_mutex_lock(&lock);
    CUresult r = exchange(&rq, image, &rs, NULL, 0, true);
    pthread_mutex_unlock(&lock);
    if (r == CUDA_SUCCESS) *m = HANDLE(CUmodule, rs.values[0]);
    return r;
}

static CUresult r_cuModuleUnload(CUmodule m) {
    detail_code = 0;
    en_remote_request rq = {.op = EN_OP_MODULE_UNLOAD, .args = {WIRE(m)}};
    en_remote_response rs = {0};
    pthread_mutex_lock(&lock);
    CUresult r = exchange(&rq, NULL, &rs, NULL, 0, true);
    /* the module's functions are gone: a later function may reuse a handle */
    for (size_t i = 0; i < layout_count;) {
        if (layouts[i].module == WIRE(m)) {
            free(layouts[i].pairs);
            layouts[i] = layouts[--layout_count];
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* lock held */
static function_layout *layout_of(uint64_t function) {
    for (size_t i = 0; i < layout_count; i++)
        if (layouts[i].function == function) return &layouts[i];
    return NULL;
}

static CUresult r_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
    detail_code = 0;
    en_remote_request rq = {.op = EN_OP_MODULE_GET_FUNCTION, .args = {WIRE(m)}, .data_bytes = strlen(name)};
    en_remote_response rs = {0};
    pthread_mutex_lock(&lock);
    /* the layout comes back with the handle: at most EN_REMOTE_MAX_PARAMS pairs */
    size_t cap = EN_REMOTE_MAX_PARAMS * 2 * sizeof(uint64_t);
    uint64_t *pairs = malloc(cap);
    CUresult r = pairs ? exchange(&rq, name, &rs, pairs, cap, true) : CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        uint64_t count = rs.values[1];
        if (count != EN_REMOTE_LAYOUT_UNKNOWN && (count > EN_REMOTE_MAX_PARAMS || rs.data_bytes != count * 16))
            count = EN_REMOTE_LAYOUT_UNKNOWN;
        function_layout *l = layout_of(rs.values[0]);
        if (l) {
            free(l->pairs); /* the same function looked up again */
            l->pairs = NULL;
        } else {
            if (layout_count == layout_cap) {
                size_t grown_cap = layout_cap ? 2 * layout_cap : 16;
                function_layout *grown = realloc(layouts, grown_cap * sizeof *grown);
                if (grown) {
                    layouts = grown;
                    layout_cap = grown_cap;
                }
            }
            if (layout_count < layout_cap) l = &layouts[layout_count++];
        }
        if (l) {
            uint64_t *kept = count == EN_REMOTE_LAYOUT_UNKNOWN ? NULL : realloc(pairs, count ? count * 16 : 16);
            *l = (function_layout){rs.values[0], WIRE(m), kept ? count : EN_REMOTE_LAYOUT_UNKNOWN, kept};
            if (kept) pairs = NULL;
        }
        *f = HANDLE(CUfunction, rs.values[0]);
    }
    pthread_mutex_unlock(&lock);
    free(pairs);
    return r;
}

static CUresult r_cuFuncGetAttribute(int *v, int attr, CUfunction f) {
    en_remote_response rs;
    CUresult r = call(EN_OP_FUNC_GET_ATTRIBUTE, true, (uint64_t)attr, WIRE(f), 0, &rs);
    if (r == CUDA_SUCCESS) *v = (int)(int64_t)rs.values[0];
    return r;
}

static CUresult r_cuFuncSetAttribute(CUfunction f, int attr, int value) {
    return call(EN_OP_FUNC_SET_ATTRIBUTE, true, WIRE(f), (uint64_t)attr, (uint64_t)(int64_t)value, NULL);
}

static const char no_layout[] =
    "cuLaunchKernel through the CUDA worker needs the kernel's parameter layout, which the driver "
    "reports with cuFuncGetParamInfo (CUDA 12.4 or later); this driver does not";

static CUresult r_cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size) {
    detail_code = 0;
    pthread_mutex_lock(&lock);
    const function_layout *l = layout_of(WIRE(f));
    CUresult r = CUDA_SUCCESS;
    if (!l || l->count == EN_REMOTE_LAYOUT_UNKNOWN) r = fail_with(CUDA_ERROR_NOT_SUPPORTED, "%s", no_layout);
    else if (index >= l->count) r = CUDA_ERROR_INVALID_VALUE;
    else {
        *offset = (size_t)l->pairs[2 * index];
        *size = (size_t)l->pairs[2 * index + 1];
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* The parameters travel packed at the offsets the driver gave for them, after the table of
 * those offsets (remote_protocol.h: EN_OP_LAUNCH_KERNEL); the worker rebuilds the void**. */
static CUresult r_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned shared_bytes, CUstream s,
                                 void **params, void **extra) {
    detail_code = 0;
    if (extra) return fail_with(CUDA_ERROR_INVALID_VALUE, "the CUDA worker takes launch parameters as kernelParams only, not `extra`");
    pthread_mutex_lock(&lock);
    const function_layout *l = layout_of(WIRE(f));
    if (!l || l->count == EN_REMOTE_LAYOUT_UNKNOWN) {
        pthread_mutex_unlock(&lock);
        return fail_with(CUDA_ERROR_NOT_SUPPORTED, "%s", l ? no_layout : "cuLaunchKernel through the CUDA worker: unknown function handle");
    }
    uint64_t n = l->count, packed = 0;
    for (uint64_t i = 0; i < n; i++)
        if (l->pairs[2 * i] + l->pairs[2 * i + 1] > packed) packed = l->pairs[2 * i] + l->pairs[2 * i + 1];
    size_t head = (size_t)((n * sizeof(uint64_t) + 15) / 16 * 16);
    unsigned char *data = calloc(1, head + (size_t)packed + 1);
    CUresult r = CUDA_SUCCESS;
    if (!data) r = CUDA_ERROR_OUT_OF_MEMORY;
    for (uint64_t i = 0; data && i < n; i++) {
        if (!params || !params[i]) {
            r = fail_with(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: kernel parameter %llu is missing", (unsigned long long)i);
            break;
        }
        memcpy(data + i * sizeof(uint64_t), &l->pairs[2 * i], sizeof(uint64_t));
        memcpy(data + head + l->pairs[2 * i], params[i], (size_t)l->pairs[2 * i + 1]);
    }
    if (r == CUDA_SUCCESS) {
        en_remote_request rq = {.op = EN_OP_LAUNCH_KERNEL,
                                .args = {WIRE(f), gx, gy, gz, bx, by, bz, shared_bytes, WIRE(s), n},
                                .data_bytes = head + packed};
        en_remote_response rs = {0};
        r = exchange(&rq, data, &rs, NULL, 0, true);
    }
    pthread_mutex_unlock(&lock);
    free(data);
    return r;
}

static CUresult r_cuMemAlloc(CUdeviceptr *p, size_t bytes) {
    en_remote_response rs;
    CUresult r = call(EN_OP_MEM_ALLOC, true, bytes, 0, 0, &rs);
    if (r == CUDA_SUCCESS) *p = rs.values[0];
    return r;
}

static CUresult r_cuMemFree(CUdeviceptr p) { return call(EN_OP_MEM_FREE, true, p, 0, 0, NULL); }

/* copies move in chunks of EN_REMOTE_COPY_CHUNK, all under one hold of the lock */
static CUresult r_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
    detail_code = 0;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    for (size_t done = 0; done < bytes && r == CUDA_SUCCESS;) {
        size_t n = bytes - done < EN_REMOTE_COPY_CHUNK ? bytes - done : EN_REMOTE_COPY_CHUNK;
        en_remote_request rq = {.op = EN_OP_MEMCPY_HTOD, .args = {dst + done}, .data_bytes = n};
        en_remote_response rs = {0};
        r = exchange(&rq, (const char *)src + done, &rs, NULL, 0, true);
        done += n;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult r_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
    detail_code = 0;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    for (size_t done = 0; done < bytes && r == CUDA_SUCCESS;) {
        size_t n = bytes - done < EN_REMOTE_COPY_CHUNK ? bytes - done : EN_REMOTE_COPY_CHUNK;
        en_remote_request rq = {.op = EN_OP_MEMCPY_DTOH, .args = {src + done, n}};
        en_remote_response rs = {0};
        r = exchange(&rq, NULL, &rs, (char *)dst + done, n, true);
        if (r == CUDA_SUCCESS && rs.data_bytes != n) r = worker_died("a short copy");
        done += n;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult r_cuMemsetD8(CUdeviceptr p, unsigned char v, size_t n) {
    return call(EN_OP_MEMSET_D8, true, p, v, n, NULL);
}

static CUresult r_cuStreamCreate(CUstream *s, unsigned flags) {
    en_remote_response rs;
    CUresult r = call(EN_OP_STREAM_CREATE, true, flags, 0, 0, &rs);
    if (r == CUDA_SUCCESS) *s = HANDLE(CUstream, rs.values[0]);
    return r;
}

static CUresult r_cuStreamDestroy(CUstream s) { return call(EN_OP_STREAM_DESTROY, true, WIRE(s), 0, 0, NULL); }
static CUresult r_cuStreamSynchronize(CUstream s) { return call(EN_OP_STREAM_SYNCHRONIZE, true, WIRE(s), 0, 0, NULL); }
static CUresult r_cuStreamQuery(CUstream s) { return call(EN_OP_STREAM_QUERY, true, WIRE(s), 0, 0, NULL); }

void en_cuda_remote_abandon(void) {
    pthread_mutex_lock(&lock);
    /* killed now, so the GPU stops running the kernel; reaped by the reset that follows */
    if (state == WORKER_RUNNING && worker_pid > 0) kill(worker_pid, SIGKILL);
    poisoned = true;
    pthread_mutex_unlock(&lock);
}

static CUresult r_cuEventCreate(CUevent *e, unsigned flags) {
    en_remote_response rs;
    CUresult r = call(EN_OP_EVENT_CREATE, true, flags, 0, 0, &rs);
    if (r == CUDA_SUCCESS) *e = HANDLE(CUevent, rs.values[0]);
    return r;
}

static CUresult r_cuEventDestroy(CUevent e) { return call(EN_OP_EVENT_DESTROY, true, WIRE(e), 0, 0, NULL); }
static CUresult r_cuEventRecord(CUevent e, CUstream s) { return call(EN_OP_EVENT_RECORD, true, WIRE(e), WIRE(s), 0, NULL); }
static CUresult r_cuEventSynchronize(CUevent e) { return call(EN_OP_EVENT_SYNCHRONIZE, true, WIRE(e), 0, 0, NULL); }

static CUresult r_cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
    en_remote_response rs;
    CUresult r = call(EN_OP_EVENT_ELAPSED_TIME, true, WIRE(a), WIRE(b), 0, &rs);
    if (r == CUDA_SUCCESS) {
        uint32_t bits = (uint32_t)rs.values[0];
        memcpy(ms, &bits, sizeof bits);
    }
    return r;
}

/* every entry point, the optional one included: one name per function of api.h */
#define REMOTE_ENTRY(name, sym, params) .name = r_##name,
static const en_cuda_driver remote_table = {
    EN_CUDA_DRIVER_FUNCTIONS(REMOTE_ENTRY)
    EN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(REMOTE_ENTRY)
};
#undef REMOTE_ENTRY

const en_cuda_driver *en_cuda_remote_driver(en_buf *err) {
    pthread_mutex_lock(&lock);
    bool ok = state == WORKER_RUNNING;
    if (!ok) {
        stop_worker(false); /* a dead one was reaped already: forget it */
        ok = start_worker(err);
    }
    pthread_mutex_unlock(&lock);
    return ok ? &remote_table : NULL;
}

void en_cuda_remote_stop_if_idle(void) {
    pthread_mutex_lock(&lock);
    if (state != WORKER_NONE && worker_retains == 0) stop_worker(true);
    pthread_mutex_unlock(&lock);
}
