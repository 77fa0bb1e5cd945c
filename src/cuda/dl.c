/* dl.c — the one place that opens CUDA's shared libraries: libcuda.so.1 (the driver) and
 * libnvrtc (the run-time compiler), with dlopen at first use, and resolves every entry point
 * enigma calls by name. Needs nothing at build time; guarantees that a table it returns is
 * complete (every required pointer set) and that a failure names what was missing.
 *
 * Where it looks:
 *   driver  $ENIGMA_LIBCUDA (tests use it to simulate a machine without CUDA), else
 *           libcuda.so.1, then libcuda.so.
 *   NVRTC   $ENIGMA_LIBNVRTC, else libnvrtc.so, libnvrtc.so.13, libnvrtc.so.12 under
 *           $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64 (a toolkit, whose
 *           headers match), then the same names on the loader's path.
 * Each library is loaded once per process; the outcome (table or reason) is kept.
 * Optional entry points (api.h: EN_CUDA_DRIVER_OPTIONAL_FUNCTIONS) are resolved when
 * present and left NULL otherwise: the table is complete without them. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static en_cuda_driver driver;
static bool driver_ok;
static char driver_reason[512];

static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;
static en_nvrtc_lib nvrtc;
static bool nvrtc_ok;
static char nvrtc_reason[1024];

/* resolves `sym` into *slot; false (with the reason) when the library lacks it. `sym` may
 * list alternatives, newest first: "a|b" (for entry points whose ABI did not change) */
static bool resolve(void *handle, const char *lib_name, const char *sym, void **slot,
                    char *reason, size_t reason_size) {
    char name[128];
    for (const char *p = sym; *p;) {
        size_t n = strcspn(p, "|");
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        *slot = dlsym(handle, name);
        if (*slot) return true;
        p += n + (p[n] == '|');
    }
    snprintf(reason, reason_size, "%s has no %s (too old a version?)", lib_name, sym);
    return false;
}

static void load_driver(void) {
    const char *override = getenv("ENIGMA_LIBCUDA");
    const char *names[] = {override && *override ? override : "libcuda.so.1",
                           override && *override ? NULL : "libcuda.so"};
    void *h = NULL;
    const char *found = NULL;
    char first_error[256] = "";
    for (size_t i = 0; i < EN_COUNT(names) && !h; i++) {
        if (!names[i]) continue;
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) found = names[i];
        /* dlerror() says why the first name failed (absent, or present but unloadable) */
        const char *why = h ? NULL : dlerror();
        if (why && !first_error[0]) snprintf(first_error, sizeof first_error, "%s", why);
    }
    if (!h) {
        snprintf(driver_reason, sizeof driver_reason,
                 "libcuda.so.1 not found (the NVIDIA driver is not installed)%s%s",
                 first_error[0] ? ": " : "", first_error);
        return;
    }
#define RESOLVE(name, sym, params)                                                           \
    if (!resolve(h, found, sym, (void **)&driver.name, driver_reason, sizeof driver_reason)) \
        return;
    EN_CUDA_DRIVER_FUNCTIONS(RESOLVE)
#undef RESOLVE
    char ignored[256];
#define RESOLVE_OPTIONAL(name, sym, params)                                                  \
    if (!resolve(h, found, sym, (void **)&driver.name, ignored, sizeof ignored)) driver.name = NULL;
    EN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(RESOLVE_OPTIONAL)
#undef RESOLVE_OPTIONAL
    driver_ok = true;
}

const en_cuda_driver *en_cuda_driver_load(en_buf *err) {
    pthread_once(&driver_once, load_driver);
    if (driver_ok) return &driver;
    en_buf_puts(err, driver_reason);
    return NULL;
}

static void *open_nvrtc(char *path, size_t path_size) {
    const char *override = getenv("ENIGMA_LIBNVRTC");
    if (override && *override) {
        snprintf(path, path_size, "%s", override);
        return dlopen(override, RTLD_NOW | RTLD_LOCAL);
    }
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
    /* a toolkit first: its NVRTC matches the headers nvrtc.c takes from the same folder */
    const char *dirs[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t d = 0; d < EN_COUNT(dirs); d++) {
        if (!dirs[d] || !*dirs[d]) continue;
        for (size_t i = 0; i < EN_COUNT(names); i++) {
            snprintf(path, path_size, "%s/lib64/%s", dirs[d], names[i]);
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) return h;
        }
    }
    for (size_t i = 0; i < EN_COUNT(names); i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(path, path_size, "%s", names[i]);
            return h;
        }
    }
    return NULL;
}

static void load_nvrtc(void) {
    void *h = open_nvrtc(nvrtc.path, sizeof nvrtc.path);
    if (!h) {
        snprintf(nvrtc_reason, sizeof nvrtc_reason,
                 "libnvrtc not found (looked for libnvrtc.so, .so.13 and .so.12 in "
                 "$CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64 and on the loader "
                 "path; set ENIGMA_LIBNVRTC to its path)");
        return;
    }
#define RESOLVE(name, sym, params)                                                           \
    if (!resolve(h, nvrtc.path, sym, (void **)&nvrtc.name, nvrtc_reason, sizeof nvrtc_reason)) \
        return;
    EN_NVRTC_FUNCTIONS(RESOLVE)
#undef RESOLVE
    nvrtc_ok = true;
}

const en_nvrtc_lib *en_nvrtc_load(en_buf *err) {
    pthread_once(&nvrtc_once, load_nvrtc);
    if (nvrtc_ok) return &nvrtc;
    en_buf_puts(err, nvrtc_reason);
    return NULL;
}

/* ---- the reporting half of EN_CU (check.h) ------------------------------------------- */
int en_cu_report_driver(const en_cuda_driver *lib, int result, const char *call, en_buf *err) {
    if (result == CUDA_SUCCESS) return 0;
    const char *message = NULL, *name = NULL;
    if (lib->cuGetErrorString(result, &message) != CUDA_SUCCESS || !message)
        message = "unknown error";
    if (lib->cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) name = "?";
    if (err) en_buf_printf(err, "%s failed: %s (%s, %d)", call, message, name, result);
    return result;
}

int en_cu_report_nvrtc(const en_nvrtc_lib *lib, int result, const char *call, en_buf *err) {
    if (result == 0) return 0;
    const char *message = ((en_nvrtcGetErrorString_fn)(void (*)(void))lib->nvrtcGetErrorString)(result);
    if (err) en_buf_printf(err, "%s failed: %s (%d)", call, message ? message : "unknown error", result);
    return result;
}
