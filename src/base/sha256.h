/* sha256.h — SHA-256 (FIPS 180-4), for content-addressed cache keys. */
#ifndef ENIGMA_SHA256_H
#define ENIGMA_SHA256_H

#include "base.h"

typedef struct en_sha256 {
    uint32_t state[8];
    uint64_t total_bytes;
    uint8_t block[64];
    size_t block_fill;
} en_sha256;

EN_INTERNAL void en_sha256_init(en_sha256 *s);
EN_INTERNAL void en_sha256_update(en_sha256 *s, const void *data, size_t n);
EN_INTERNAL void en_sha256_final(en_sha256 *s, uint8_t digest[32]);
/* tests: the SHA extensions on (where the processor has them) or off; true when on. The
 * default is on where available. */
EN_INTERNAL bool en_sha256_set_hardware(bool on);

#endif
