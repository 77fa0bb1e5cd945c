/* rt_test.h — the few checks the runtime tests share. A failed check prints the
 * expression, its place and the library's last error, and the test exits 1; a test
 * whose subject is not built yet (no front end, no cpu backend) exits 77, which ctest
 * shows as skipped rather than passed. */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enigma.h"

static int rt_failures;

#define CHECK(cond)                                                                                  \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n  last error: %s\n", __FILE__, __LINE__, #cond, \
                    enigma_last_error());                                                            \
            rt_failures++;                                                                           \
        }                                                                                            \
    } while (0)

#define CHECK_STATUS(expr, want)                                                                     \
    do {                                                                                             \
        enigma_status got_ = (expr);                                                                 \
        if (got_ != (want)) {                                                                        \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n  last error: %s\n", __FILE__, __LINE__, \
                    #expr, enigma_status_name(got_), enigma_status_name(want), enigma_last_error()); \
            rt_failures++;                                                                           \
        }                                                                                            \
    } while (0)

/* the last error equals `want` exactly */
#define CHECK_ERROR_IS(want)                                                                         \
    do {                                                                                             \
        if (strcmp(enigma_last_error(), (want)) != 0) {                                              \
            fprintf(stderr, "%s:%d: last error is\n  \"%s\"\nexpected\n  \"%s\"\n", __FILE__, __LINE__, \
                    enigma_last_error(), (want));                                                    \
            rt_failures++;                                                                           \
        }                                                                                            \
    } while (0)

/* the last error contains `want` */
#define CHECK_ERROR_HAS(want)                                                                        \
    do {                                                                                             \
        if (!strstr(enigma_last_error(), (want))) {                                                  \
            fprintf(stderr, "%s:%d: last error\n  \"%s\"\ndoes not contain\n  \"%s\"\n", __FILE__, __LINE__, \
                    enigma_last_error(), (want));                                                    \
            rt_failures++;                                                                           \
        }                                                                                            \
    } while (0)

#define RT_SKIP(why)                                                                                 \
    do {                                                                                             \
        printf("SKIP: %s\n", why);                                                                   \
        exit(77);                                                                                    \
    } while (0)

/* a checked build of `source`'s only kernel on the cpu backend, ready to dispatch: the
 * device, library, pipeline and command it made are left in the out-parameters (NULL where
 * a step failed, which CHECK_STATUS has counted) */
static inline void rt_checked_command(const char *source, const char *file, enigma_device **dev, enigma_library **lib,
                                      enigma_pipeline **p, enigma_command **cmd) {
    *dev = NULL;
    *lib = NULL;
    *p = NULL;
    *cmd = NULL;
    CHECK_STATUS(enigma_device_open("cpu", dev), ENIGMA_OK);
    enigma_compile_options opts = {.checked = true};
    CHECK_STATUS(enigma_library_create_from_source(*dev, source, strlen(source), file, &opts, lib), ENIGMA_OK);
    CHECK_STATUS(enigma_pipeline_create(*lib, NULL, p), ENIGMA_OK);
    CHECK_STATUS(enigma_command_create(*p, cmd), ENIGMA_OK);
}

static int rt_result(const char *name) {
    if (rt_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, rt_failures);
    else printf("%s: ok\n", name);
    return rt_failures ? 1 : 0;
}

#endif
