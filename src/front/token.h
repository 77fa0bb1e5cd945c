/* token.h — tokens, as the lexer makes them and the preprocessor passes them on. */
#ifndef ENIGMA_TOKEN_H
#define ENIGMA_TOKEN_H

#include "../base/base.h"

typedef enum en_token_kind {
    EN_TK_EOF,
    EN_TK_IDENT,   /* identifiers, keywords included: the parser matches their text */
    EN_TK_INT,     /* integer literal: .ival, .lit_suffix */
    EN_TK_FLOAT,   /* floating literal: .fval, .lit_suffix */
    EN_TK_CHAR,    /* character literal: .ival */
    EN_TK_STRING,  /* string literal: .text includes the quotes */
    EN_TK_PUNCT,   /* operators and punctuation, longest match: "<<=", "::", "->" ... */
    EN_TK_PRAGMA,  /* a `#pragma unroll [N]` that reaches the parser: .ival = N, 0 = none */
} en_token_kind;

/* literal suffixes, as written */
enum {
    EN_LIT_NONE = 0,
    EN_LIT_U = 1,   /* u, U */
    EN_LIT_L = 2,   /* l, L, ll, LL */
    EN_LIT_H = 4,   /* half: h, H */
    EN_LIT_F = 8,   /* float: f, F */
    EN_LIT_BF = 16, /* bfloat: bf */
};

typedef struct en_token {
    en_token_kind kind;
    const char *text; /* the spelling, NUL-terminated */
    int len;
    en_loc loc;       /* where it was written; for a macro expansion, the use site */
    uint64_t ival;
    double fval;
    int lit_suffix;
    bool at_line_start, has_space;
    bool no_expand;   /* preprocessor-internal: a macro name met inside its own expansion,
                         never expanded again (C11 6.10.3.4p2) */
} en_token;

typedef struct en_tokens {
    en_token *items;
    int count;
} en_tokens;

#endif
