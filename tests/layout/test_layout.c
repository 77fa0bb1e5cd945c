/* test_layout.c — the C API of the layout algebra (include/enigma_layout.h): CuTe's
 * documented examples in its notation, parsing and printing, and errors with messages.
 * The operations are compared with pycute on random layouts in python/tests/test_layout.py. */
#include <string.h>

#include "../test_util.h"
#include "enigma_layout.h"

static enigma_layout *parse(const char *text) {
    enigma_layout *l = NULL;
    REQUIRE(enigma_layout_parse(text, &l));
    return l;
}

/* checks that `l` prints as `want`, then frees it */
static void expect_text(enigma_layout *l, const char *want, const char *what) {
    char *text = enigma_layout_text(l);
    CHECK(text && strcmp(text, want) == 0, "%s: got %s, want %s", what, text ? text : "(null)", want);
    enigma_free(text);
    enigma_layout_destroy(l);
}

typedef enigma_status (*binary)(const enigma_layout *, const enigma_layout *, enigma_layout **);

static void expect_binary(binary f, const char *a, const char *b, const char *want, const char *what) {
    enigma_layout *la = parse(a), *lb = parse(b), *out = NULL;
    OK(f(la, lb, &out));
    if (out) expect_text(out, want, what);
    enigma_layout_destroy(la);
    enigma_layout_destroy(lb);
}

int main(void) {
    /* parsing and printing round-trip, spaces allowed */
    expect_text(parse("( 4 , (2,3) ) : (1, (4,8))"), "(4,(2,3)):(1,(4,8))", "round trip");
    expect_text(parse("8"), "8:1", "an integer is n:1");
    expect_text(parse("(4,8)"), "(4:1,8:1)", "a bare tuple is a tuple of layouts");
    expect_text(parse("(3:3,(2,4):(1,8))"), "(3:3,(2,4):(1,8))", "a tuple of layouts");

    enigma_layout *l = parse("(4,(2,3)):(1,(4,8))");
    CHECK(enigma_layout_size(l) == 24, "size %lld", (long long)enigma_layout_size(l));
    CHECK(enigma_layout_cosize(l) == 3 + 4 + 16 + 1, "cosize %lld", (long long)enigma_layout_cosize(l));
    CHECK(enigma_layout_rank(l) == 2 && enigma_layout_depth(l) == 2, "rank %d depth %d", enigma_layout_rank(l),
          enigma_layout_depth(l));
    int64_t offset = -1;
    OK(enigma_layout_offset(l, 13, &offset)); /* 13 = (1, 3) = (1, (1, 1)): 1 + 4 + 8 */
    CHECK(offset == 13, "L(13) = %lld", (long long)offset);
    enigma_layout *m = NULL;
    OK(enigma_layout_mode(l, 1, &m));
    if (m) expect_text(m, "(2,3):(4,8)", "mode 1");
    CHECK(enigma_layout_offset(l, 24, &offset) == ENIGMA_ERROR_INVALID_ARGUMENT &&
              strstr(enigma_last_error(), "index 24 is outside the layout's 24 elements"),
          "%s", enigma_last_error());
    enigma_layout_destroy(l);

    /* CuTe's documentation */
    expect_binary(enigma_layout_composition, "(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)", "composition");
    expect_binary(enigma_layout_logical_divide, "(4,2,3):(2,1,8)", "4:2", "((2,2),(2,3)):((4,1),(2,8))",
                  "logical_divide");
    expect_binary(enigma_layout_logical_product, "(2,2):(4,1)", "6:1", "((2,2),(2,3)):((4,1),(2,8))",
                  "logical_product");
    expect_binary(enigma_layout_zipped_divide, "(9,(4,8)):(59,(13,1))", "(3:3,(2,4):(1,8))",
                  "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))", "zipped_divide");
    enigma_layout *c = NULL, *a = parse("4:1");
    OK(enigma_layout_complement(a, 24, &c));
    if (c) expect_text(c, "6:4", "complement");
    enigma_layout_destroy(a);

    int64_t shape[2] = {4, 32}, order[2] = {1, 0}, vshape[2] = {4, 4};
    enigma_layout *thr = NULL, *val = NULL, *tiler = NULL, *tv = NULL;
    OK(enigma_layout_make_ordered(shape, order, 2, &thr));
    OK(enigma_layout_make_ordered(vshape, order, 2, &val));
    OK(enigma_layout_make_tv(thr, val, &tiler, &tv));
    if (tiler) expect_text(tiler, "(16:1,128:1)", "make_layout_tv's tiler");
    if (tv) expect_text(tv, "((32,4),(4,4)):((64,4),(16,1))", "make_layout_tv");
    enigma_layout_destroy(thr);
    enigma_layout_destroy(val);

    /* errors name the problem */
    l = NULL;
    CHECK(enigma_layout_parse("(4,8):(1)", &l) == ENIGMA_ERROR_INVALID_ARGUMENT && !l &&
              strstr(enigma_last_error(), "different structures"),
          "%s", enigma_last_error());
    CHECK(enigma_layout_parse("(4,8):(1,4", &l) == ENIGMA_ERROR_INVALID_ARGUMENT &&
              strstr(enigma_last_error(), "column"),
          "%s", enigma_last_error());
    enigma_layout *x = parse("(4,3):(1,5)"), *y = parse("2:3"), *z = NULL;
    CHECK(enigma_layout_composition(x, y, &z) == ENIGMA_ERROR_INVALID_ARGUMENT && !z &&
              strstr(enigma_last_error(), "does not divide"),
          "%s", enigma_last_error());
    CHECK(enigma_layout_composition(x, NULL, &z) == ENIGMA_ERROR_INVALID_ARGUMENT, "NULL layout");
    enigma_layout_destroy(x);
    enigma_layout_destroy(y);
    fprintf(stderr, "test_layout: %d failures\n", failures);
    return failures ? 1 : 0;
}
