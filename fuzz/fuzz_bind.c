/* fuzz_bind.c — libFuzzer target over binding a kernel's parameters by name and by index
 * (enigma_command_set_buffer[_by_name], set_bytes[_by_name], set_threadgroup_memory), as
 * the CLI and the Python binding do with user input. An input is a list of operations: an
 * op byte, a binding index byte, a length byte, then a NUL-terminated name. Every call ends
 * in ENIGMA_OK or an error with a message; nothing crashes or leaks. The kernel is compiled
 * once (the cpu backend, so the fuzzer needs a C compiler). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "enigma.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char source[] =
    "kernel void k(device float *a [[buffer(0)]], device const int *b [[buffer(2)]],\n"
    "              constant uint &n [[buffer(3)]], constant float4 &v [[buffer(5)]],\n"
    "              threadgroup float *t [[threadgroup(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    t[0] = v.x; a[i] = float(b[i]) * float(n) + t[0];\n"
    "}\n";

static enigma_device *dev;
static enigma_pipeline *pipe_k;
static enigma_buffer *buf;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    enigma_library *lib = NULL;
    if (enigma_device_open("cpu", &dev) != ENIGMA_OK ||
        enigma_library_create_from_source(dev, source, sizeof source - 1, "bind.metal", NULL, &lib) != ENIGMA_OK ||
        enigma_pipeline_create(lib, "k", &pipe_k) != ENIGMA_OK ||
        enigma_buffer_create(dev, 256, &buf) != ENIGMA_OK)
        __builtin_trap();
    enigma_library_destroy(lib); /* the pipeline keeps what it needs */
    return 0;
}

static void expect(enigma_status st) {
    if (st != ENIGMA_OK && !enigma_last_error()[0]) __builtin_trap(); /* every error says why */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    enigma_command *cmd = NULL;
    if (enigma_command_create(pipe_k, &cmd) != ENIGMA_OK) __builtin_trap();
    static const unsigned char payload[256];
    size_t at = 0;
    while (at + 3 <= size) {
        uint8_t op = data[at], index = data[at + 1], len = data[at + 2];
        at += 3;
        const char *name = (const char *)data + at;
        const void *nul = memchr(data + at, 0, size - at);
        if (!nul) break;
        at = (size_t)((const uint8_t *)nul - data) + 1;
        int idx = (int)(int8_t)index; /* negative indexes too */
        switch (op % 6) {
        case 0: expect(enigma_command_set_buffer_by_name(cmd, name, buf, len)); break;
        case 1: expect(enigma_command_set_bytes_by_name(cmd, name, payload, len)); break;
        case 2: expect(enigma_command_set_buffer(cmd, idx, buf, len)); break;
        case 3: expect(enigma_command_set_bytes(cmd, idx, payload, len)); break;
        case 4: expect(enigma_command_set_threadgroup_memory(cmd, idx, (size_t)len * 64)); break;
        case 5: expect(enigma_command_set_buffer_by_name(cmd, name, NULL, 0)); break;
        }
    }
    enigma_command_destroy(cmd);
    return 0;
}
