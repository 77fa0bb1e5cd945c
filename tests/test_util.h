/* test_util.h — what the C API tests share: a CHECK that counts failures and goes on,
 * OK for enigma calls (printing the library's message), and a small seeded generator for
 * random inputs (seeded from the clock, so each run draws fresh data). */
#ifndef ENIGMA_TEST_UTIL_H
#define ENIGMA_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "enigma.h"

static int failures;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            failures++;                                                                    \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);             \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)
#define OK(call) CHECK((call) == ENIGMA_OK, "%s: %s", #call, enigma_last_error())
/* an enigma call the rest of the test cannot do without: on failure, say why and stop */
#define REQUIRE(call)                                                                      \
    do {                                                                                   \
        enigma_status s_ = (call);                                                         \
        if (s_ != ENIGMA_OK) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,               \
                    enigma_status_name(s_), enigma_last_error());                          \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* xorshift64: never zero once seeded */
static uint64_t state;
__attribute__((unused)) static void rnd_seed_from_clock(void) { state = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1; }
__attribute__((unused)) static uint64_t rnd(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

#endif
