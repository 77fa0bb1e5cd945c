/* blake2b.h — BLAKE2b (RFC 7693) with a 32-byte digest, unkeyed: the CPU backend's cache
 * keys. A cryptographic hash (a collision would load the wrong code), and on a processor
 * without the SHA extensions about four times faster than SHA-256 in portable C: 64-bit
 * words and 12 rounds of additions, rotations and xors per 128-byte block. */
#ifndef ENIGMA_BLAKE2B_H
#define ENIGMA_BLAKE2B_H

#include "base.h"

typedef struct en_blake2b {
    uint64_t h[8];
    uint64_t total_bytes; /* the counter t (a 64-bit count: inputs stay below 2^64 bytes) */
    uint8_t block[128];
    size_t block_fill;
} en_blake2b;

EN_INTERNAL void en_blake2b_init(en_blake2b *s);
EN_INTERNAL void en_blake2b_update(en_blake2b *s, const void *data, size_t n);
EN_INTERNAL void en_blake2b_final(en_blake2b *s, uint8_t digest[32]);

#endif
