/* error.c — the calling thread's last-error message, status names, version, enigma_free.
 *
 * The message lives in a fixed thread-local array so that setting it can never fail and
 * nothing is left to free when a thread ends. Long messages are cut at its size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static _Thread_local char last_error[2048];

const char *enigma_last_error(void) { return last_error; }

enigma_status en_fail(enigma_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

enigma_status en_fail_buf(enigma_status status, const char *prefix, const en_buf *err) {
    const char *text = err && err->data && err->len ? err->data : "no details were given";
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) n--; /* one-line messages */
    return en_fail(status, "%s%.*s", prefix, (int)n, text);
}

const char *enigma_status_name(enigma_status s) {
    switch (s) {
    case ENIGMA_OK: return "ok";
    case ENIGMA_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case ENIGMA_ERROR_COMPILE: return "compile error";
    case ENIGMA_ERROR_LIMIT: return "limit exceeded";
    case ENIGMA_ERROR_UNAVAILABLE: return "unavailable";
    case ENIGMA_ERROR_RUNTIME: return "runtime error";
    case ENIGMA_ERROR_CHECK_FAILED: return "checked mode found problems";
    case ENIGMA_ERROR_IO: return "i/o error";
    case ENIGMA_ERROR_OUT_OF_MEMORY: return "out of memory";
    case ENIGMA_ERROR_INTERNAL: return "internal error";
    case ENIGMA_ERROR_TIMEOUT: return "timed out";
    case ENIGMA_ERROR_CANCELLED: return "cancelled";
    }
    return "unknown status";
}

#define EN_STR2(x) #x
#define EN_STR(x) EN_STR2(x)
const char *enigma_version(void) {
    return EN_STR(ENIGMA_VERSION_MAJOR) "." EN_STR(ENIGMA_VERSION_MINOR) "." EN_STR(ENIGMA_VERSION_PATCH);
}

void enigma_free(void *p) { free(p); }
