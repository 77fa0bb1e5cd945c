/* test_errors.c — argument checking and messages of the C API that need no kernel: every
 * failing call returns its status and leaves a message naming what is wrong; nothing
 * prints or aborts. Also the cuda-unavailable message and device information. */
#include <pthread.h>

#include "rt_test.h"

static void status_names(void) {
    const char *seen[16] = {0};
    for (int s = ENIGMA_OK; s <= ENIGMA_ERROR_INTERNAL; s++) {
        const char *n = enigma_status_name((enigma_status)s);
        CHECK(n && *n);
        for (int k = 0; k < s; k++) CHECK(strcmp(seen[k], n) != 0);
        seen[s] = n;
    }
    CHECK(strcmp(enigma_status_name(ENIGMA_OK), "ok") == 0);
    CHECK(strcmp(enigma_version(), "0.1.0") == 0);
}

static void devices(void) {
    enigma_device *dev = (enigma_device *)&dev; /* must be reset to NULL on failure */
    CHECK_STATUS(enigma_device_open("x", &dev), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_IS("unknown backend 'x' (expected cpu, cuda or auto)");
    CHECK(dev == NULL);
    CHECK_STATUS(enigma_device_open("cpu", NULL), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("out is NULL");

    /* cuda either opens or says why, with the documented prefix and a reason after it */
    enigma_status st = enigma_device_open("cuda", &dev);
    if (st == ENIGMA_OK) {
        enigma_device_info info;
        CHECK_STATUS(enigma_device_get_info(dev, &info), ENIGMA_OK);
        CHECK(strcmp(info.backend, "cuda") == 0);
        CHECK(info.simd_width == 32);
        enigma_device_close(dev);
    } else {
        CHECK(st == ENIGMA_ERROR_UNAVAILABLE);
        const char *prefix = "cuda backend unavailable: ";
        CHECK(strncmp(enigma_last_error(), prefix, strlen(prefix)) == 0);
        CHECK(strlen(enigma_last_error()) > strlen(prefix));
        CHECK(dev == NULL);
    }

    /* auto always opens something where cpu opens */
    enigma_device *cpu = NULL;
    if (enigma_device_open("cpu", &cpu) == ENIGMA_OK) {
        enigma_device_info info;
        CHECK_STATUS(enigma_device_get_info(cpu, &info), ENIGMA_OK);
        CHECK(strcmp(info.backend, "cpu") == 0);
        CHECK(info.max_threads_per_threadgroup == 1024);
        CHECK(info.max_threadgroup_memory == 32768);
        CHECK(info.simd_width == 32);
        CHECK(info.compute_units >= 1);
        CHECK(info.name && strncmp(info.name, "cpu", 3) == 0);
        CHECK_STATUS(enigma_device_get_info(cpu, NULL), ENIGMA_ERROR_INVALID_ARGUMENT);
        enigma_device_close(cpu);
        enigma_device *any = NULL;
        CHECK_STATUS(enigma_device_open("auto", &any), ENIGMA_OK);
        enigma_device_close(any);
        CHECK_STATUS(enigma_device_open(NULL, &any), ENIGMA_OK); /* NULL means auto */
        enigma_device_close(any);
    }
    CHECK_STATUS(enigma_device_get_info(NULL, NULL), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("dev is NULL");
    enigma_device_close(NULL); /* a no-op, like free(NULL) */
}

static void null_objects(void) {
    enigma_buffer *buf = NULL;
    CHECK_STATUS(enigma_buffer_create(NULL, 16, &buf), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("dev is NULL");
    CHECK_STATUS(enigma_buffer_write(NULL, 0, "x", 1), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("buf is NULL");
    CHECK(enigma_buffer_size(NULL) == 0);
    enigma_buffer_destroy(NULL);

    enigma_library *lib = NULL;
    CHECK_STATUS(enigma_library_create_from_source(NULL, NULL, 0, NULL, NULL, &lib), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("source is NULL");
    CHECK_STATUS(enigma_library_create_from_file(NULL, "/nonexistent/dir/k.metal", NULL, &lib), ENIGMA_ERROR_IO);
    CHECK_ERROR_HAS("/nonexistent/dir/k.metal");
    CHECK(lib == NULL);
    const char *bad_defines[] = {NULL};
    enigma_compile_options opts = {.defines = bad_defines, .define_count = 1};
    CHECK_STATUS(enigma_library_create_from_source(NULL, "", 0, NULL, &opts, &lib), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("defines[0]");
    opts = (enigma_compile_options){.include_dir_count = 2};
    CHECK_STATUS(enigma_library_create_from_source(NULL, "", 0, NULL, &opts, &lib), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("include_dir_count is 2");
    CHECK(enigma_library_kernel_count(NULL) == 0);
    CHECK(enigma_library_kernel_name(NULL, 0) == NULL);
    CHECK(strcmp(enigma_library_diagnostics_text(NULL), "") == 0);
    char *text = NULL;
    CHECK_STATUS(enigma_library_emit(NULL, "ir", &text), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(enigma_library_build_offline(NULL, "cuda", &text), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("lib is NULL");
    CHECK_STATUS(enigma_library_build_offline(NULL, "cuda", NULL), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("summary is NULL");

    enigma_pipeline *p = NULL;
    CHECK_STATUS(enigma_pipeline_create(NULL, "k", &p), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("lib is NULL");
    CHECK(enigma_pipeline_find_param(NULL, "a") == -1);
    enigma_command *cmd = NULL;
    CHECK_STATUS(enigma_command_create(NULL, &cmd), ENIGMA_ERROR_INVALID_ARGUMENT);
    enigma_size3 one = {1, 1, 1};
    CHECK_STATUS(enigma_command_dispatch(NULL, ENIGMA_DISPATCH_THREADS, one, one), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("cmd is NULL");
    CHECK_STATUS(enigma_command_wait(NULL), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK(enigma_command_report_count(NULL) == 0);
    CHECK(strcmp(enigma_command_reports_text(NULL), "") == 0);
    CHECK(enigma_command_last_duration_ns(NULL) == 0);
}

/* a source with an error still hands back a library holding the diagnostics */
static void compile_errors(void) {
    const char *src = "kernel void k(device float* a [[buffer(0)]]) {\n  a[0] = ;\n}\n";
    enigma_library *lib = NULL;
    CHECK_STATUS(enigma_library_create_from_source(NULL, src, strlen(src), "bad.metal", NULL, &lib),
                 ENIGMA_ERROR_COMPILE);
    CHECK(lib != NULL);
    if (!lib) return;
    CHECK_ERROR_HAS("bad.metal:");
    CHECK(enigma_library_diagnostic_count(lib) >= 1);
    enigma_diagnostic d;
    CHECK_STATUS(enigma_library_get_diagnostic(lib, 0, &d), ENIGMA_OK);
    CHECK(d.severity == ENIGMA_SEVERITY_ERROR);
    CHECK(d.file && strcmp(d.file, "bad.metal") == 0);
    CHECK(d.line >= 1 && d.column >= 1);
    CHECK(d.message && *d.message);
    CHECK(strstr(enigma_library_diagnostics_text(lib), "bad.metal:") != NULL);
    CHECK(strstr(enigma_library_diagnostics_text(lib), ": error: ") != NULL);
    CHECK_STATUS(enigma_library_get_diagnostic(lib, -1, &d), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("index -1 is out of range");
    CHECK(enigma_library_kernel_count(lib) == 0);
    char *text = NULL;
    CHECK_STATUS(enigma_library_emit(lib, "ir", &text), ENIGMA_ERROR_COMPILE);
    CHECK(text == NULL);
    enigma_pipeline *p = NULL;
    CHECK_STATUS(enigma_pipeline_create(lib, NULL, &p), ENIGMA_ERROR_COMPILE);
    enigma_library_destroy(lib);
}

/* the last error is per thread: another thread's failure does not replace ours */
static void *fail_in_thread(void *arg) {
    enigma_device *dev;
    enigma_device_open("from-thread", &dev);
    *(bool *)arg = strstr(enigma_last_error(), "'from-thread'") != NULL;
    return NULL;
}

static void per_thread_errors(void) {
    enigma_device *dev;
    CHECK_STATUS(enigma_device_open("from-main", &dev), ENIGMA_ERROR_INVALID_ARGUMENT);
    bool thread_saw_its_own = false;
    pthread_t t;
    pthread_create(&t, NULL, fail_in_thread, &thread_saw_its_own);
    pthread_join(t, NULL);
    CHECK(thread_saw_its_own);
    CHECK_ERROR_HAS("'from-main'");
}

int main(void) {
    status_names();
    per_thread_errors();
    devices();
    null_objects();
    compile_errors();
    return rt_result("test_errors");
}
