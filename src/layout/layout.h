/* layout.h — CuTe's layout algebra inside enigma (seed 002): hierarchical shape:stride
 * layouts and the operations on them, with NVIDIA CuTe's meaning, so that a layout written
 * for CuTe means the same thing here (PyPI's pycute is the tests' oracle).
 *
 *   algebra.c   size, cosize, coalesce, composition, complement, inverses, divides, products,
 *               make_ordered_layout, make_layout_tv
 *   text.c      parsing and printing CuTe's notation: (4,(2,3)):(1,(4,8))
 *   api.c       the public enigma_layout_* functions (include/enigma_layout.h)
 *
 * A layout is a tree of l_node: a leaf is one mode shape:stride, an inner node a tuple of
 * modes. A tiler may also be a tuple of layouts (CuTe's by-mode tilers): a node marked
 * `layouts`, whose children are layouts. Nodes live in the arena of the call that made them;
 * a failed check records its message in the l_ctx and the operation returns NULL. */
#ifndef ENIGMA_LAYOUT_H
#define ENIGMA_LAYOUT_H

#include "../base/base.h"

typedef struct l_node {
    int count;            /* -1: a leaf; else the number of children */
    bool layouts;         /* a tuple of layouts (a by-mode tiler), not a tuple of modes */
    int64_t shape, stride; /* leaves */
    struct l_node **kids;
} l_node;

typedef struct l_ctx {
    en_arena *arena;
    char error[256];      /* the first failed check, "" while none failed */
} l_ctx;

EN_INTERNAL l_node *l_leaf(l_ctx *c, int64_t shape, int64_t stride);
EN_INTERNAL l_node *l_tuple(l_ctx *c, int count);
EN_INTERNAL bool l_is_leaf(const l_node *n);
EN_INTERNAL int l_rank(const l_node *n);
EN_INTERNAL int l_depth(const l_node *n);
EN_INTERNAL const l_node *l_mode(const l_node *n, int i);
EN_INTERNAL int64_t l_size(const l_node *n);
EN_INTERNAL int64_t l_cosize(const l_node *n);
EN_INTERNAL int64_t l_index(const l_node *n, int64_t index); /* the layout as a function of one index */
EN_INTERNAL l_node *l_copy(l_ctx *c, const l_node *n);
EN_INTERNAL bool l_fail(l_ctx *c, const char *fmt, ...) EN_PRINTF(2, 3);

EN_INTERNAL l_node *l_coalesce(l_ctx *c, const l_node *a);
EN_INTERNAL l_node *l_composition(l_ctx *c, const l_node *a, const l_node *b);
EN_INTERNAL l_node *l_complement(l_ctx *c, const l_node *a, int64_t cotarget);
EN_INTERNAL l_node *l_right_inverse(l_ctx *c, const l_node *a);
EN_INTERNAL l_node *l_left_inverse(l_ctx *c, const l_node *a);
EN_INTERNAL l_node *l_logical_divide(l_ctx *c, const l_node *a, const l_node *tiler);
EN_INTERNAL l_node *l_zipped_divide(l_ctx *c, const l_node *a, const l_node *tiler);
EN_INTERNAL l_node *l_tiled_divide(l_ctx *c, const l_node *a, const l_node *tiler);
EN_INTERNAL l_node *l_logical_product(l_ctx *c, const l_node *a, const l_node *tiler);
EN_INTERNAL l_node *l_zipped_product(l_ctx *c, const l_node *a, const l_node *tiler);
EN_INTERNAL l_node *l_tiled_product(l_ctx *c, const l_node *a, const l_node *tiler);
EN_INTERNAL l_node *l_blocked_product(l_ctx *c, const l_node *a, const l_node *b);
EN_INTERNAL l_node *l_raked_product(l_ctx *c, const l_node *a, const l_node *b);
/* strides in the order `order` gives (the mode with the smallest order value is stride 1) */
EN_INTERNAL l_node *l_make_ordered(l_ctx *c, const int64_t *shape, const int64_t *order, int rank);
/* CuTe DSL's make_layout_tv: *tiler_out is the tile's shape (as a layout of stride 1 modes'
 * sizes), the result maps (thread, value) to the tile's coordinates */
EN_INTERNAL l_node *l_make_layout_tv(l_ctx *c, const l_node *thr, const l_node *val, l_node **tiler_out);

EN_INTERNAL l_node *l_parse(l_ctx *c, const char *text);
EN_INTERNAL void l_print(const l_node *n, en_buf *out);

#endif
