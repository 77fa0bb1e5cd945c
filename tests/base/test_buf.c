/* test_buf.c — en_buf_printf writes what snprintf writes: the conversions it formats
 * itself (s, c, d, i, u, x, %%, with l, ll and z), the ones it hands to vsnprintf (flags,
 * widths, precisions, floats), appended to text already there and across the buffer's
 * growth, with the extremes of each integer type. */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

static int passed, failed;

/* appends fmt to a buffer that already holds `prefix` and compares with snprintf */
#define CASE(prefix, fmt, ...)                                                                     \
    do {                                                                                           \
        en_buf b = {0};                                                                            \
        en_buf_puts(&b, prefix);                                                                   \
        en_buf_printf(&b, fmt, __VA_ARGS__);                                                       \
        char want[4096];                                                                           \
        int n = snprintf(want, sizeof want, "%s" fmt, prefix, __VA_ARGS__);                        \
        if (n >= 0 && b.data && b.len == (size_t)n && strcmp(b.data, want) == 0) {                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            fprintf(stderr, "FAIL %s:%d: format \"%s\": got \"%s\" (%zu bytes), want \"%s\"\n",   \
                    __FILE__, __LINE__, fmt, b.data ? b.data : "(none)", b.len, want);             \
        }                                                                                          \
        en_buf_free(&b);                                                                           \
    } while (0)

int main(void) {
    char long_text[1500];
    memset(long_text, 'q', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = 0;

    /* formatted here */
    CASE("", "plain text, no conversion%s", "");
    CASE("x = ", "%d", 0);
    CASE("", "%d %d %d", INT_MIN, INT_MAX, -1);
    CASE("", "%i|%u|%x", -42, UINT_MAX, 0xbeefu);
    CASE("", "%ld %lu %lx", LONG_MIN, ULONG_MAX, (unsigned long)LONG_MAX);
    CASE("", "%lld %llu %llx", LLONG_MIN, ULLONG_MAX, 0ull);
    CASE("", "%zu %zu", SIZE_MAX, (size_t)12345);
    CASE("", "100%% of %s is '%c'", "it", 'z');
    CASE("", "%s%s%s", "", "a", "");
    CASE("before ", "%s and after", long_text);               /* grows the buffer */
    CASE(long_text, " then %u more", 7u);                     /* starts from a large buffer */
    CASE("", "%" PRIu64 " and %" PRId64, UINT64_MAX, INT64_MIN);

    /* handed to vsnprintf */
    CASE("", "%5d|%-4u|%04x", 42, 7u, 0xabu);
    CASE("", "%.3f %g %a", 3.14159, 1e-7, 0.5);
    CASE("", "%.*s", 3, "abcdef");
    CASE("a ", "%s %8.2f", long_text, -2.5);                  /* past the free space: formatted twice */
    CASE("", "%p", (void *)0);

    /* two printfs into one buffer */
    en_buf b = {0};
    en_buf_printf(&b, "%s=%d", "k", -3);
    en_buf_printf(&b, ", %.1f", 0.25);
    if (strcmp(b.data, "k=-3, 0.2") == 0 || strcmp(b.data, "k=-3, 0.3") == 0) passed++;
    else {
        failed++;
        fprintf(stderr, "FAIL two printfs: got \"%s\"\n", b.data);
    }
    en_buf_free(&b);

    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
