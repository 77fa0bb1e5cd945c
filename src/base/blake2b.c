/* blake2b.c — BLAKE2b as RFC 7693 specifies it, for a 32-byte digest and no key: the
 * parameter block is digest length 32, key length 0, fanout 1, depth 1. The last block,
 * full or not, is compressed with the final flag set, so a full block is kept back until
 * more input comes. tests/cpu/test_cpu_cache.c checks the digests against Python's
 * hashlib.blake2b(digest_size=32). */
#include "blake2b.h"

#include <string.h>

static const uint64_t initial[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

/* the message word each G of each round takes (rounds 10 and 11 repeat 0 and 1) */
static const uint8_t schedule[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static uint64_t load_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* the mixing function G on words a, b, c, d of v with message words x and y */
#define MIX(a, b, c, d, x, y)                 \
    do {                                      \
        v[a] = v[a] + v[b] + (x);             \
        v[d] = rotr64(v[d] ^ v[a], 32);       \
        v[c] = v[c] + v[d];                   \
        v[b] = rotr64(v[b] ^ v[c], 24);       \
        v[a] = v[a] + v[b] + (y);             \
        v[d] = rotr64(v[d] ^ v[a], 16);       \
        v[c] = v[c] + v[d];                   \
        v[b] = rotr64(v[b] ^ v[c], 63);       \
    } while (0)

static void compress(uint64_t h[8], const uint8_t block[128], uint64_t counted, bool last) {
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = load_le64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = initial[i];
    }
    v[12] ^= counted; /* the high word of the 128-bit counter stays 0 */
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = schedule[r];
        MIX(0, 4, 8, 12, m[s[0]], m[s[1]]);
        MIX(1, 5, 9, 13, m[s[2]], m[s[3]]);
        MIX(2, 6, 10, 14, m[s[4]], m[s[5]]);
        MIX(3, 7, 11, 15, m[s[6]], m[s[7]]);
        MIX(0, 5, 10, 15, m[s[8]], m[s[9]]);
        MIX(1, 6, 11, 12, m[s[10]], m[s[11]]);
        MIX(2, 7, 8, 13, m[s[12]], m[s[13]]);
        MIX(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

void en_blake2b_init(en_blake2b *s) {
    memcpy(s->h, initial, sizeof initial);
    s->h[0] ^= 0x01010000ull | 32u; /* fanout 1, depth 1, no key, 32-byte digest */
    s->total_bytes = 0;
    s->block_fill = 0;
}

void en_blake2b_update(en_blake2b *s, const void *data, size_t n) {
    const uint8_t *p = data;
    while (n > 0) {
        if (s->block_fill == 128) { /* more input follows: this block is not the last */
            s->total_bytes += 128;
            compress(s->h, s->block, s->total_bytes, false);
            s->block_fill = 0;
        }
        if (s->block_fill == 0) /* whole blocks straight from the input, all but one kept back */
            for (; n > 128; p += 128, n -= 128) {
                s->total_bytes += 128;
                compress(s->h, p, s->total_bytes, false);
            }
        size_t take = 128 - s->block_fill;
        if (take > n) take = n;
        memcpy(s->block + s->block_fill, p, take);
        s->block_fill += take;
        p += take;
        n -= take;
    }
}

void en_blake2b_final(en_blake2b *s, uint8_t digest[32]) {
    s->total_bytes += s->block_fill;
    memset(s->block + s->block_fill, 0, 128 - s->block_fill);
    compress(s->h, s->block, s->total_bytes, true);
    for (int i = 0; i < 32; i++) digest[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
}
