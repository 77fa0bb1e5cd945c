/* sha256.c — SHA-256 as FIPS 180-4 specifies it: 64-byte blocks, big-endian words,
 * 64 rounds per block. Used for cache keys, where a collision would load the wrong code,
 * so a cryptographic hash rather than FNV.
 *
 * Every cache hit hashes the whole generated program (about 100 KB for a small library), so
 * the hash is a fifth of a hit's time in portable C (0.33 ms for 100 KB); x86 processors
 * with the SHA extensions (sha_ni: Intel since Ice Lake and Goldmont, AMD since Zen) do the
 * rounds in hardware, several times faster, and are used when the processor says it has
 * them. Both give the same digest (tests/cpu/test_cpu_cache.c compares them). */
#include "sha256.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EN_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress_portable(uint32_t state[8], const uint8_t block[64]) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      round_constants[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

#ifdef EN_SHA256_X86
/* blocks of 64 bytes with the SHA extensions. The state lives as ABEF and CDGH (the order
 * sha256rnds2 takes); each group of four rounds adds four message words and their round
 * constants, runs two rounds twice, and extends the schedule four words ahead
 * (sha256msg1/msg2, with the alignr supplying w[i-7]). */
__attribute__((target("sha,sse4.1,ssse3"))) static void compress_x86(uint32_t state[8], const uint8_t *data,
                                                                  size_t blocks) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1), efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8), cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; blocks > 0; blocks--, data += 64) {
        __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i m[4];
        for (int g = 0; g < 16; g++) { /* rounds 4g .. 4g+3 */
            __m128i *cur = &m[g % 4], *prev = &m[(g + 3) % 4], *next = &m[(g + 1) % 4];
            if (g < 4) *cur = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byte_swap);
            __m128i w = _mm_add_epi32(*cur, _mm_loadu_si128((const __m128i *)&round_constants[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, w);
            if (g >= 3 && g <= 14) { /* the words of the group after next */
                *next = _mm_add_epi32(*next, _mm_alignr_epi8(*cur, *prev, 4));
                *next = _mm_sha256msg2_epu32(*next, *cur);
            }
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(w, 0x0E));
            if (g >= 1 && g <= 12) *prev = _mm_sha256msg1_epu32(*prev, *cur);
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B), dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0)); /* DCBA */
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));   /* HGFE */
}

static bool cpu_has_sha(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    bool sha = b & (1u << 29);
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    return sha && (c & bit_SSE4_1) && (c & bit_SSSE3);
}
#endif

/* -1 unknown, 0 portable, 1 the SHA extensions; the same answer for every thread, so a race
 * to set it is harmless */
static int hardware = -1;

static bool use_hardware(void) {
    int h = __atomic_load_n(&hardware, __ATOMIC_RELAXED);
    if (h < 0) {
#ifdef EN_SHA256_X86
        h = cpu_has_sha();
#else
        h = 0;
#endif
        __atomic_store_n(&hardware, h, __ATOMIC_RELAXED);
    }
    return h == 1;
}

bool en_sha256_set_hardware(bool on) {
    bool available = false;
#ifdef EN_SHA256_X86
    available = cpu_has_sha();
#endif
    __atomic_store_n(&hardware, on && available, __ATOMIC_RELAXED);
    return on && available;
}

static void compress(uint32_t state[8], const uint8_t *data, size_t blocks) {
#ifdef EN_SHA256_X86
    if (use_hardware()) {
        compress_x86(state, data, blocks);
        return;
    }
#endif
    for (; blocks > 0; blocks--, data += 64) compress_portable(state, data);
}

void en_sha256_init(en_sha256 *s) {
    static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->state, initial, sizeof initial);
    s->total_bytes = 0;
    s->block_fill = 0;
}

void en_sha256_update(en_sha256 *s, const void *data, size_t n) {
    const uint8_t *p = data;
    s->total_bytes += n;
    if (s->block_fill > 0) { /* complete the block begun before */
        size_t take = 64 - s->block_fill;
        if (take > n) take = n;
        memcpy(s->block + s->block_fill, p, take);
        s->block_fill += take;
        p += take;
        n -= take;
        if (s->block_fill < 64) return;
        compress(s->state, s->block, 1);
        s->block_fill = 0;
    }
    if (n >= 64) { /* whole blocks straight from the input */
        compress(s->state, p, n / 64);
        p += n / 64 * 64;
        n %= 64;
    }
    memcpy(s->block, p, n);
    s->block_fill = n;
}

void en_sha256_final(en_sha256 *s, uint8_t digest[32]) {
    uint64_t bits = s->total_bytes * 8;
    uint8_t pad = 0x80;
    en_sha256_update(s, &pad, 1);
    uint8_t zero = 0;
    while (s->block_fill != 56) en_sha256_update(s, &zero, 1);
    uint8_t length[8];
    for (int i = 0; i < 8; i++) length[i] = (uint8_t)(bits >> (56 - 8 * i));
    en_sha256_update(s, length, 8);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(s->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(s->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(s->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)s->state[i];
    }
}
