/* parse_api_test.c — en_parse at its edges, where golden files cannot reach: token
 * arrays without an EOF or with one in the middle, an empty array, hand-made pragma
 * tokens, an arena out of memory, and the locations the tree promises (ast.h: operators at the operator, calls
 * at the callee, declarations at their name). Exits 1 on the first failed check. */
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "front/ast.h"
#include "front/front.h"

static int failures;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);       \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* tokens from words: digits make INT tokens, "@N" a `#pragma unroll N`, "$" an EOF,
 * identifiers IDENT, anything else PUNCT; all on line 1, one column per word */
static en_tokens make_tokens(en_ctx *c, const char *const *words, int n) {
    en_token *t = en_alloc(&c->arena, sizeof *t * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        const char *w = words[i];
        t[i].text = w;
        t[i].len = (int)strlen(w);
        t[i].loc = (en_loc){0, 1, i + 1};
        if (w[0] >= '0' && w[0] <= '9') {
            t[i].kind = EN_TK_INT;
            t[i].ival = (uint64_t)(w[0] - '0');
        } else if (w[0] == '@') {
            t[i].kind = EN_TK_PRAGMA;
            t[i].ival = (uint64_t)(w[1] - '0');
        } else if (w[0] == '$') {
            t[i].kind = EN_TK_EOF;
        } else if ((w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z') || w[0] == '_') {
            t[i].kind = EN_TK_IDENT;
        } else {
            t[i].kind = EN_TK_PUNCT;
        }
    }
    return (en_tokens){t, n};
}

static void test_empty(void) {
    en_ctx c;
    en_ctx_init(&c);
    ast_unit *u = en_parse(&c, (en_tokens){NULL, 0});
    CHECK(u != NULL);
    CHECK(u && u->decls.count == 0);
    CHECK(c.diags.errors == 0);
    en_ctx_free(&c);
}

static void test_missing_eof(void) {
    en_ctx c;
    en_ctx_init(&c);
    en_source_add(&c.sources, "t.metal", "", 0);
    static const char *const words[] = {"kernel", "void", "k", "(", ")", "{", "return", ";"};
    ast_unit *u = en_parse(&c, make_tokens(&c, words, (int)EN_COUNT(words)));
    CHECK(u && u->decls.count == 1);
    CHECK(u && u->decls.count == 1 && u->decls.items[0]->kind == AST_DECL_FUNC);
    CHECK(c.diags.errors == 1); /* expected '}' at the end */
    en_ctx_free(&c);
}

static void test_eof_in_middle(void) {
    en_ctx c;
    en_ctx_init(&c);
    static const char *const words[] = {"int", "a", ";", "$", "garbage", ")", "("};
    ast_unit *u = en_parse(&c, make_tokens(&c, words, (int)EN_COUNT(words)));
    CHECK(u && u->decls.count == 1);
    CHECK(c.diags.errors == 0); /* nothing after the EOF is read */
    en_ctx_free(&c);
}

static void test_pragma_token(void) {
    en_ctx c;
    en_ctx_init(&c);
    static const char *const words[] = {"void", "f", "(", ")", "{", "@4", "for", "(", ";",
                                        ";", ")", ";", "@0", "while", "(", "x", ")", ";",
                                        "}", "$"};
    ast_unit *u = en_parse(&c, make_tokens(&c, words, (int)EN_COUNT(words)));
    CHECK(c.diags.errors == 0);
    if (u && u->decls.count == 1 && u->decls.items[0]->body) {
        const ast_stmt *body = u->decls.items[0]->body;
        CHECK(body->body.count == 2);
        if (body->body.count == 2) {
            CHECK(body->body.items[0]->kind == AST_STMT_FOR);
            CHECK(body->body.items[0]->has_unroll && body->body.items[0]->unroll_count == 4);
            CHECK(body->body.items[1]->kind == AST_STMT_WHILE);
            CHECK(body->body.items[1]->has_unroll && body->body.items[1]->unroll_count == 0);
        }
    } else {
        CHECK(!"one function with a body");
    }
    en_ctx_free(&c);
}

/* with the arena out of memory the parser stops and hands over an empty unit */
static void test_out_of_memory(void) {
    en_ctx c;
    en_ctx_init(&c);
    static const char *const words[] = {"int", "a", ";", "int", "b", ";", "$"};
    en_tokens toks = make_tokens(&c, words, (int)EN_COUNT(words));
    c.arena.out_of_memory = true;
    ast_unit *u = en_parse(&c, toks);
    CHECK(u != NULL);
    CHECK(u && u->decls.count == 0);
    en_ctx_free(&c);
}

static bool loc_is(en_loc l, int line, int col) { return l.line == line && l.col == col; }

static void test_locations(void) {
    static const char src[] =
        "kernel void k(device float *p [[buffer(0)]]) {\n" /* line 1 */
        "    float x = max(p[0], 1.0f);\n"                   /* line 2 */
        "    p[1] = x + p[2].y;\n"                           /* line 3 */
        "}\n";
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_add(&c.sources, "loc.metal", src, sizeof src - 1);
    ast_unit *u = en_parse(&c, en_preprocess(&c, file));
    CHECK(c.diags.errors == 0);
    if (!u || u->decls.count != 1 || !u->decls.items[0]->body ||
        u->decls.items[0]->body->body.count != 2) {
        CHECK(!"the kernel has two statements");
        en_ctx_free(&c);
        return;
    }
    const ast_decl *k = u->decls.items[0];
    CHECK(loc_is(k->loc, 1, 13));                   /* the name k */
    CHECK(k->params.count == 1 && loc_is(k->params.items[0].loc, 1, 29));
    CHECK(k->params.count == 1 && k->params.items[0].attrs.count == 1 &&
          loc_is(k->params.items[0].attrs.items[0].loc, 1, 33));
    const ast_stmt *decl = k->body->body.items[0];
    CHECK(decl->kind == AST_STMT_DECL && decl->decls.count == 1);
    if (decl->decls.count == 1) {
        const ast_decl *x = decl->decls.items[0];
        CHECK(loc_is(x->loc, 2, 11));               /* the name x */
        CHECK(x->init && x->init->kind == AST_EXPR_CALL && loc_is(x->init->loc, 2, 15));
        CHECK(x->init && x->init->args.count == 2 &&
              x->init->args.items[0]->kind == AST_EXPR_SUBSCRIPT &&
              loc_is(x->init->args.items[0]->loc, 2, 20)); /* the '[' */
    }
    const ast_stmt *st = k->body->body.items[1];
    CHECK(st->kind == AST_STMT_EXPR && st->expr && st->expr->kind == AST_EXPR_ASSIGN);
    if (st->expr && st->expr->kind == AST_EXPR_ASSIGN) {
        CHECK(loc_is(st->expr->loc, 3, 10));        /* the '=' */
        const ast_expr *sum = st->expr->rhs;
        CHECK(sum->kind == AST_EXPR_BINARY && sum->op == AST_OP_ADD && loc_is(sum->loc, 3, 14));
        CHECK(sum->rhs && sum->rhs->kind == AST_EXPR_MEMBER && loc_is(sum->rhs->loc, 3, 21));
    }
    en_ctx_free(&c);
}

int main(void) {
    test_empty();
    test_missing_eof();
    test_eof_in_middle();
    test_pragma_token();
    test_out_of_memory();
    test_locations();
    if (failures) fprintf(stderr, "%d checks failed\n", failures);
    else printf("parse_api_test: all checks passed\n");
    return failures ? 1 : 0;
}
