/* input_key.h — the digest of a compile's inputs (input_key.c has the contract). */
#ifndef ENIGMA_INPUT_KEY_H
#define ENIGMA_INPUT_KEY_H

#include "../base/ctx.h"

/* after a successful en_compile(c): the digest of what it read; false (and no digest) in a
 * build without an identity */
EN_INTERNAL bool en_input_digest(const en_ctx *c, uint8_t digest[32]);

#endif
