/* test_checked_memory.c — checked mode that cannot get the memory for its shadow says so:
 * with the address space capped, a checked dispatch over a buffer whose shadow (24 bytes a
 * byte) does not fit runs to the end, writes its results, and returns
 * ENIGMA_ERROR_OUT_OF_MEMORY naming the buffer left unchecked for races, instead of
 * reporting nothing as if it had checked. Skips under AddressSanitizer, whose own shadow
 * does not fit under a cap on the address space. */
#include <sys/resource.h>

#include "rt_test.h"

static const char *source =
    "kernel void bump(device float* a [[buffer(0)]],\n"
    "                 uint i [[thread_position_in_grid]]) {\n"
    "    a[i] = a[i] + 1.0f;\n"
    "}\n";

/* the process's address space now, in bytes (0 when unknown) */
static size_t address_space(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f && fscanf(f, "%lu", &pages) != 1) pages = 0;
    if (f) fclose(f);
    return (size_t)pages * 4096u;
}

int main(void) {
#if defined(__SANITIZE_ADDRESS__)
    RT_SKIP("AddressSanitizer reserves more address space than the cap leaves");
#endif
    enigma_device *dev;
    enigma_library *lib;
    enigma_pipeline *p;
    enigma_command *cmd;
    rt_checked_command(source, "bump.metal", &dev, &lib, &p, &cmd);
    enigma_size3 grid = {64, 1, 1}, group = {32, 1, 1};
    /* a small buffer first: the kernel is built and the workers started before the cap */
    enigma_buffer *small = NULL, *big = NULL;
    CHECK_STATUS(enigma_buffer_create(dev, 64 * sizeof(float), &small), ENIGMA_OK);
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, small, 0), ENIGMA_OK);
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group), ENIGMA_OK);
    size_t big_bytes = (size_t)64 << 20; /* its shadow: ~1.5 GB */
    CHECK_STATUS(enigma_buffer_create(dev, big_bytes, &big), ENIGMA_OK);
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, big, 0), ENIGMA_OK);

    struct rlimit before;
    size_t now = address_space();
    if (now && big && getrlimit(RLIMIT_AS, &before) == 0) {
        struct rlimit cap = {.rlim_cur = now + ((size_t)256 << 20), .rlim_max = before.rlim_max};
        CHECK(setrlimit(RLIMIT_AS, &cap) == 0);
        enigma_status st = enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group);
        setrlimit(RLIMIT_AS, &before);
        CHECK(st == ENIGMA_ERROR_OUT_OF_MEMORY);
        CHECK_ERROR_HAS("checked mode ran out of memory for the shadow of buffer 'a'");
        CHECK_ERROR_HAS("not checked for races");
        CHECK(enigma_command_report_count(cmd) == 0);
        float a[64];
        CHECK_STATUS(enigma_buffer_read(big, 0, a, sizeof a), ENIGMA_OK);
        CHECK(a[0] == 1.0f && a[63] == 1.0f); /* the dispatch ran */
        /* with the memory back, the same dispatch is checked in full */
        CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group), ENIGMA_OK);
    } else {
        CHECK(!"the address space could not be read or capped");
    }
    enigma_buffer_destroy(small);
    enigma_buffer_destroy(big);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    return rt_result("test_checked_memory");
}
