/* enigma_layout.h — CuTe's layout algebra (seed 002), in C.
 *
 * A layout maps coordinates to offsets: a hierarchical shape and a stride of the same
 * structure, written as CuTe writes them, "(4,(2,3)):(1,(4,8))". The operations are NVIDIA
 * CuTe's, with its meaning (and pycute's, its Python reference): a layout written for CuTe
 * means the same thing here.
 *
 *   enigma_layout *a, *b, *c;
 *   enigma_layout_parse("(6,2):(8,2)", &a);
 *   enigma_layout_parse("(4,3):(3,1)", &b);
 *   enigma_layout_composition(a, b, &c);
 *   char *text = enigma_layout_text(c);      // "((2,2),3):((24,2),8)"
 *   enigma_free(text);
 *
 * A tiler (the second argument of the divides and products, and of composition) may also be
 * a tuple of layouts, "(4:1,8:2)" or just "(4,8)": it then applies mode by mode. Every call
 * that can fail returns an enigma_status with a message (enigma_last_error()) naming the
 * problem, such as a composition whose strides do not divide. Layouts are immutable and
 * may be shared between threads; each made by this API is freed with
 * enigma_layout_destroy. */
#ifndef ENIGMA_LAYOUT_H_PUBLIC
#define ENIGMA_LAYOUT_H_PUBLIC

#include "enigma.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct enigma_layout enigma_layout;

/* a layout or a tiler from CuTe's notation (see text.c for the grammar) */
ENIGMA_API enigma_status enigma_layout_parse(const char *text, enigma_layout **out);
/* CuTe's notation, no spaces; free with enigma_free() */
ENIGMA_API char *enigma_layout_text(const enigma_layout *l);
ENIGMA_API void enigma_layout_destroy(enigma_layout *l);

ENIGMA_API int64_t enigma_layout_size(const enigma_layout *l);   /* elements of the domain */
ENIGMA_API int64_t enigma_layout_cosize(const enigma_layout *l); /* L(size - 1) + 1 */
ENIGMA_API int enigma_layout_rank(const enigma_layout *l);       /* top-level modes */
ENIGMA_API int enigma_layout_depth(const enigma_layout *l);      /* 0 for a single mode */
/* mode i (CuTe's get<i>) */
ENIGMA_API enigma_status enigma_layout_mode(const enigma_layout *l, int i, enigma_layout **out);
/* L(index): the offset of the index'th element, in colexicographic order */
ENIGMA_API enigma_status enigma_layout_offset(const enigma_layout *l, int64_t index, int64_t *out);

ENIGMA_API enigma_status enigma_layout_coalesce(const enigma_layout *l, enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_composition(const enigma_layout *a, const enigma_layout *b,
                                                   enigma_layout **out);
/* the layout of the offsets below `cotarget` that `l` does not reach */
ENIGMA_API enigma_status enigma_layout_complement(const enigma_layout *l, int64_t cotarget,
                                                  enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_right_inverse(const enigma_layout *l, enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_left_inverse(const enigma_layout *l, enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_logical_divide(const enigma_layout *l, const enigma_layout *tiler,
                                                      enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_zipped_divide(const enigma_layout *l, const enigma_layout *tiler,
                                                     enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_tiled_divide(const enigma_layout *l, const enigma_layout *tiler,
                                                    enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_logical_product(const enigma_layout *l, const enigma_layout *tiler,
                                                       enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_zipped_product(const enigma_layout *l, const enigma_layout *tiler,
                                                      enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_tiled_product(const enigma_layout *l, const enigma_layout *tiler,
                                                     enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_blocked_product(const enigma_layout *a, const enigma_layout *b,
                                                       enigma_layout **out);
ENIGMA_API enigma_status enigma_layout_raked_product(const enigma_layout *a, const enigma_layout *b,
                                                     enigma_layout **out);
/* a compact layout of `shape` whose strides grow in the order `order` gives: the mode with
 * the smallest order value has stride 1 (make_ordered_layout((4,8), (1,0)) is (4,8):(8,1)) */
ENIGMA_API enigma_status enigma_layout_make_ordered(const int64_t *shape, const int64_t *order, int rank,
                                                    enigma_layout **out);
/* the CuTe DSL's make_layout_tv: from a thread layout and a value layout, the tile they
 * cover (*tiler, a tuple of sizes) and the layout from (thread, value) to the tile's
 * elements (*tv) */
ENIGMA_API enigma_status enigma_layout_make_tv(const enigma_layout *threads, const enigma_layout *values,
                                               enigma_layout **tiler, enigma_layout **tv);

#ifdef __cplusplus
}
#endif

#endif
