/* cli_info.c — `enigma info`: each backend, whether it opens, and its device's limits. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char info_help[] =
    "usage: enigma info\n"
    "\n"
    "Lists the backends (cpu, cuda), whether each can open a device here, and each device's\n"
    "name and limits: threads per threadgroup, threadgroup memory, SIMD width, compute units,\n"
    "memory. An unavailable backend is shown with the reason.\n";

static void print_device(const char *backend) {
    enigma_device *dev;
    enigma_status st = enigma_device_open(backend, &dev);
    if (st != ENIGMA_OK) {
        printf("%s: unavailable (%s)\n", backend, enigma_last_error());
        return;
    }
    enigma_device_info info;
    enigma_device_get_info(dev, &info);
    /* device names may already lead with their backend ("cpu: AMD EPYC ...") */
    size_t n = strlen(backend);
    if (strncmp(info.name, backend, n) == 0 && info.name[n] == ':') printf("%s\n", info.name);
    else printf("%s: %s\n", backend, info.name);
    printf("  max threads per threadgroup   %u\n", info.max_threads_per_threadgroup);
    printf("  max threadgroup memory        %llu bytes\n", (unsigned long long)info.max_threadgroup_memory);
    printf("  simd width                    %u\n", info.simd_width);
    printf("  compute units                 %u\n", info.compute_units);
    if (info.memory_bytes) printf("  memory                        %llu bytes\n", (unsigned long long)info.memory_bytes);
    enigma_device_close(dev);
}

int cli_info(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(info_help, stdout);
            return EXIT_OK;
        }
        cli_error(EXIT_USAGE, "info: unexpected argument '%s'", argv[i]);
        fputs(info_help, stderr);
        return EXIT_USAGE;
    }
    printf("enigma %s\n", enigma_version());
    print_device("cpu");
    print_device("cuda");
    enigma_device *dev;
    if (enigma_device_open("auto", &dev) == ENIGMA_OK) {
        enigma_device_info info;
        enigma_device_get_info(dev, &info);
        printf("auto: %s\n", info.backend);
        enigma_device_close(dev);
    } else {
        printf("auto: unavailable (%s)\n", enigma_last_error());
    }
    return EXIT_OK;
}
