/* lex.h — the lexer's interface to the preprocessor (internal to src/front/pp*.c).
 *
 * The lexer turns bytes into en_tokens on demand, one at a time, so that the
 * preprocessor can lex skipped conditional groups quietly and read directive lines up
 * to their end without lexing the next line. */
#ifndef ENIGMA_LEX_H
#define ENIGMA_LEX_H

#include "../base/ctx.h"
#include "token.h"

typedef struct en_lexer {
    en_ctx *c;
    const char *src; /* the bytes; may hold NULs, need not end with a newline */
    size_t len, pos;
    int line, col;        /* physical position of pos, 1-based */
    int loc_file;         /* the file index locations carry (#line may change it) */
    int64_t line_offset;  /* added to physical lines (#line) */
    bool at_line_start;   /* the next token begins a line */
    int break_line;       /* physical line of the newline that set at_line_start */
    bool has_space;       /* whitespace or a comment precedes the next token */
    bool spliced;         /* the token being lexed crosses a backslash-newline */
    bool quiet;           /* no diagnostics (skipped groups, ## results) */
    int errors;           /* errors met (counted also when quiet) */
} en_lexer;

EN_INTERNAL void en_lexer_init(en_lexer *L, en_ctx *c, int file, const char *text, size_t len);
/* the next token; EN_TK_EOF at the end (and every call after) */
EN_INTERNAL en_token en_lex_next(en_lexer *L);
/* skips whitespace and comments; true when the next token starts a new line or the
 * input ends (the end of a directive line) */
EN_INTERNAL bool en_lex_line_ends(en_lexer *L);
/* the location of the lexer's current position */
EN_INTERNAL en_loc en_lex_loc(const en_lexer *L);

#endif
