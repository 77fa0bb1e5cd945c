/* fuzz_values.c — libFuzzer target over the CLI's typed value parser (tools/cli_values.c):
 * `enigma run k.metal x=1.5,2,-3` spells a parameter's elements as text. The first input
 * byte picks the parameter's scalar type and lanes, the rest is the text. Every input ends
 * in bytes of a whole number of elements or a message, never a crash or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    enigma_param_info p;
    memset(&p, 0, sizeof p);
    p.name = "x";
    p.element_type = "fuzzed";
    p.element_scalar = (enigma_scalar)(data[0] % 16);
    static const int lane_choices[] = {1, 2, 3, 4};
    p.element_lanes = lane_choices[(data[0] >> 4) & 3];
    size_t scalar = cli_scalar_size(p.element_scalar);
    p.element_size = scalar * (size_t)(p.element_lanes == 3 ? 4 : p.element_lanes);
    p.is_reference = (data[0] >> 6) & 1;
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    void *bytes = NULL;
    size_t len = 0;
    char err[512] = "";
    if (cli_parse_numbers(text, &p, &bytes, &len, err, sizeof err)) {
        if (!p.element_size || len % p.element_size) __builtin_trap();
    } else if (!err[0]) {
        __builtin_trap();
    }
    free(bytes);
    free(text);
    return 0;
}
