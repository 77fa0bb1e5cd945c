/* test_checked.c — checked mode through the API: a checked build of a kernel that writes
 * one past its buffer completes, returns ENIGMA_ERROR_CHECK_FAILED, and leaves one
 * out-of-bounds report at the faulting line with the number of faulting threads; the
 * same dispatch inside the bounds is clean and clears the reports. Skips while the cpu
 * backend does not instrument checked builds (its C is then the same as unchecked). */
#include "rt_test.h"

static const char *source =
    "kernel void oob(device float* a [[buffer(0)]],\n"
    "                uint i [[thread_position_in_grid]]) {\n"
    "    a[i + 1] = 1.0f;\n"
    "}\n";

static char *emit_c(bool checked) {
    enigma_compile_options opts = {.checked = checked};
    enigma_library *lib = NULL;
    char *text = NULL;
    if (enigma_library_create_from_source(NULL, source, strlen(source), "oob.metal", &opts, &lib) == ENIGMA_OK)
        enigma_library_emit(lib, "c", &text);
    enigma_library_destroy(lib);
    return text;
}

int main(void) {
    char *plain = emit_c(false), *checked = emit_c(true);
    bool instrumented = plain && checked && strcmp(plain, checked) != 0;
    enigma_free(plain);
    enigma_free(checked);
    if (!instrumented) RT_SKIP("the cpu backend does not instrument checked builds yet");

    enigma_device *dev;
    enigma_library *lib;
    enigma_pipeline *p;
    enigma_command *cmd;
    rt_checked_command(source, "oob.metal", &dev, &lib, &p, &cmd);
    enigma_buffer *buf = NULL;
    CHECK_STATUS(enigma_buffer_create(dev, 64 * sizeof(float), &buf), ENIGMA_OK);
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, buf, 0), ENIGMA_OK);
    if (cmd && buf) {
        enigma_size3 grid = {64, 1, 1}, group = {32, 1, 1};
        CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group), ENIGMA_ERROR_CHECK_FAILED);
        CHECK_ERROR_HAS("checked mode found 1 problem in kernel 'oob'");
        CHECK(enigma_command_report_count(cmd) == 1);
        enigma_check_report r;
        CHECK_STATUS(enigma_command_get_report(cmd, 0, &r), ENIGMA_OK);
        CHECK(r.kind == ENIGMA_CHECK_OUT_OF_BOUNDS && strcmp(r.kind_name, "out-of-bounds") == 0);
        CHECK(strcmp(r.file, "oob.metal") == 0 && r.line == 3);
        CHECK(r.count == 1); /* only thread 63 writes past the end */
        CHECK(strstr(enigma_command_reports_text(cmd), "oob.metal:3:") != NULL);
        CHECK_STATUS(enigma_command_get_report(cmd, 1, &r), ENIGMA_ERROR_INVALID_ARGUMENT);
        /* the in-bounds writes still happened: the dispatch completed */
        float a[64];
        CHECK_STATUS(enigma_buffer_read(buf, 0, a, sizeof a), ENIGMA_OK);
        CHECK(a[0] == 0.0f && a[1] == 1.0f && a[63] == 1.0f);

        enigma_size3 inside = {63, 1, 1};
        CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, inside, group), ENIGMA_OK);
        CHECK(enigma_command_report_count(cmd) == 0);
        CHECK(strcmp(enigma_command_reports_text(cmd), "") == 0);
    }
    enigma_buffer_destroy(buf);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    return rt_result("test_checked");
}
