/* algebra.c — the layout algebra of NVIDIA CuTe (its "Layout algebra" documentation), on
 * l_node trees.
 *
 * Needs: layouts whose shapes are positive. Guarantees: every result equals what CuTe
 * (and pycute, its Python reference) computes, mode structure included; a precondition CuTe
 * asserts (composition's divisibility, complement's disjointness, a tiler of higher rank
 * than its layout) fails with a message in the l_ctx instead. Integer division follows
 * CuTe's: rounding down, and up where CuTe uses ceil_div. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

bool l_fail(l_ctx *c, const char *fmt, ...) {
    if (!c->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->error, sizeof c->error, fmt, ap);
        va_end(ap);
    }
    return false;
}

l_node *l_leaf(l_ctx *c, int64_t shape, int64_t stride) {
    l_node *n = en_alloc(c->arena, sizeof *n);
    n->count = -1;
    n->shape = shape;
    n->stride = stride;
    return n;
}

l_node *l_tuple(l_ctx *c, int count) {
    l_node *n = en_alloc(c->arena, sizeof *n);
    n->count = count;
    n->kids = en_alloc(c->arena, sizeof *n->kids * (size_t)(count > 0 ? count : 1));
    return n;
}

bool l_is_leaf(const l_node *n) { return n->count < 0; }
int l_rank(const l_node *n) { return l_is_leaf(n) ? 1 : n->count; }

int l_depth(const l_node *n) {
    if (l_is_leaf(n)) return 0;
    int d = 0;
    for (int i = 0; i < n->count; i++) {
        int k = l_depth(n->kids[i]);
        if (k > d) d = k;
    }
    return d + 1;
}

/* mode i, as CuTe's get<i>: a leaf is its own mode 0 */
const l_node *l_mode(const l_node *n, int i) { return l_is_leaf(n) ? n : n->kids[i]; }

int64_t l_size(const l_node *n) {
    if (l_is_leaf(n)) return n->shape;
    int64_t s = 1;
    for (int i = 0; i < n->count; i++) s *= l_size(n->kids[i]);
    return s;
}

l_node *l_copy(l_ctx *c, const l_node *n) {
    if (l_is_leaf(n)) return l_leaf(c, n->shape, n->stride);
    l_node *t = l_tuple(c, n->count);
    t->layouts = n->layouts;
    for (int i = 0; i < n->count; i++) t->kids[i] = l_copy(c, n->kids[i]);
    return t;
}

/* ---- flat views --------------------------------------------------------------------------- */
typedef struct flat {
    int count, cap;
    int64_t *shape, *stride;
} flat;

static void flat_push(l_ctx *c, flat *f, int64_t shape, int64_t stride) {
    if (f->count == f->cap) {
        int cap = f->cap ? 2 * f->cap : 8;
        int64_t *s = en_alloc(c->arena, sizeof *s * (size_t)cap), *d = en_alloc(c->arena, sizeof *d * (size_t)cap);
        if (f->count) {
            memcpy(s, f->shape, sizeof *s * (size_t)f->count);
            memcpy(d, f->stride, sizeof *d * (size_t)f->count);
        }
        f->shape = s;
        f->stride = d;
        f->cap = cap;
    }
    f->shape[f->count] = shape;
    f->stride[f->count++] = stride;
}

static void flatten_into(l_ctx *c, const l_node *n, flat *f) {
    if (l_is_leaf(n)) flat_push(c, f, n->shape, n->stride);
    else
        for (int i = 0; i < n->count; i++) flatten_into(c, n->kids[i], f);
}

static flat flatten(l_ctx *c, const l_node *n) {
    flat f = {0};
    flatten_into(c, n, &f);
    return f;
}

/* one mode for one entry, a tuple of leaves otherwise (as CuTe builds flat results) */
static l_node *from_flat(l_ctx *c, const flat *f) {
    if (f->count == 1) return l_leaf(c, f->shape[0], f->stride[0]);
    l_node *t = l_tuple(c, f->count);
    for (int i = 0; i < f->count; i++) t->kids[i] = l_leaf(c, f->shape[i], f->stride[i]);
    return t;
}

static l_node *pair(l_ctx *c, const l_node *a, const l_node *b) {
    l_node *t = l_tuple(c, 2);
    t->kids[0] = (l_node *)a;
    t->kids[1] = (l_node *)b;
    return t;
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/* the layout as a function of one index: the index's colexicographic coordinate, dotted
 * with the strides */
int64_t l_index(const l_node *n, int64_t index) {
    if (l_is_leaf(n)) return index * n->stride; /* the last mode takes what is left */
    int64_t offset = 0;
    for (int i = 0; i < n->count; i++) {
        int64_t s = l_size(n->kids[i]);
        int64_t coord = i + 1 < n->count ? floor_mod(index, s) : index;
        offset += l_index(n->kids[i], coord);
        index = floor_div(index, s);
    }
    return offset;
}

int64_t l_cosize(const l_node *n) { return l_index(n, l_size(n) - 1) + 1; }

/* ---- coalesce ----------------------------------------------------------------------------- */
l_node *l_coalesce(l_ctx *c, const l_node *a) {
    flat in = flatten(c, a), out = {0};
    flat_push(c, &out, 1, 0);
    for (int i = 0; i < in.count; i++) {
        int64_t s = in.shape[i], d = in.stride[i];
        int last = out.count - 1;
        if (s == 1) continue;                 /* a mode of one element adds nothing */
        if (out.shape[last] == 1) {           /* replace the placeholder */
            out.shape[last] = s;
            out.stride[last] = d;
        } else if (out.shape[last] * out.stride[last] == d) { /* continues the previous mode */
            out.shape[last] *= s;
        } else {
            flat_push(c, &out, s, d);
        }
    }
    return from_flat(c, &out);
}

/* coalesce each top-level mode on its own (CuTe's coalesce with a profile of 1s) */
static l_node *coalesce_each(l_ctx *c, const l_node *a) {
    if (l_is_leaf(a)) return l_coalesce(c, a);
    l_node *t = l_tuple(c, a->count);
    for (int i = 0; i < a->count; i++) t->kids[i] = l_coalesce(c, a->kids[i]);
    return t;
}

/* ---- composition -------------------------------------------------------------------------- */
/* A ∘ (s:d): the elements of A at d, 2d, ... (s of them), split along A's modes */
static l_node *compose_mode(l_ctx *c, const l_node *a, int64_t shape, int64_t stride) {
    if (stride == 0) return l_leaf(c, shape, 0);
    flat fa = flatten(c, l_coalesce(c, a)), out = {0};
    int64_t rest_shape = shape, rest_stride = stride;
    for (int i = 0; i + 1 < fa.count; i++) {
        int64_t s = fa.shape[i], d = fa.stride[i];
        if (floor_mod(s, rest_stride) != 0 && floor_mod(rest_stride, s) != 0) {
            l_fail(c, "composition: the stride %lld does not divide, and is not divided by, the "
                      "mode shape %lld of the first layout", (long long)rest_stride, (long long)s);
            return NULL;
        }
        int64_t next = floor_div(s, rest_stride);
        if (next < 1) next = 1;
        if (next > rest_shape) next = rest_shape;
        if (next != 1) flat_push(c, &out, next, rest_stride * d);
        rest_shape = floor_div(rest_shape, next);
        rest_stride = ceil_div(rest_stride, s);
    }
    if (rest_shape != 1 || out.count == 0) flat_push(c, &out, rest_shape, rest_stride * fa.stride[fa.count - 1]);
    return from_flat(c, &out);
}

static bool rank_fits(l_ctx *c, const char *op, const l_node *a, const l_node *tiler) {
    if (l_rank(a) >= tiler->count) return true;
    return l_fail(c, "%s: the tiler has %d modes but the layout only %d", op, tiler->count, l_rank(a));
}

l_node *l_composition(l_ctx *c, const l_node *a, const l_node *b) {
    if (b->layouts) { /* by-mode: mode i of A with tiler i; A's further modes unchanged */
        if (!rank_fits(c, "composition", a, b)) return NULL;
        l_node *t = l_tuple(c, l_rank(a));
        for (int i = 0; i < t->count; i++) {
            t->kids[i] = i < b->count ? l_composition(c, l_mode(a, i), b->kids[i]) : l_copy(c, l_mode(a, i));
            if (!t->kids[i]) return NULL;
        }
        return t;
    }
    if (!l_is_leaf(b)) { /* B's modes each compose with the whole of A */
        l_node *t = l_tuple(c, b->count);
        for (int i = 0; i < b->count; i++)
            if (!(t->kids[i] = l_composition(c, a, b->kids[i]))) return NULL;
        return t;
    }
    return compose_mode(c, a, b->shape, b->stride);
}

/* ---- complement and inverses -------------------------------------------------------------- */
typedef struct mode3 {
    int64_t stride, shape, extra;
} mode3;

static int by_stride(const void *x, const void *y) {
    const mode3 *a = x, *b = y;
    if (a->stride != b->stride) return a->stride < b->stride ? -1 : 1;
    if (a->shape != b->shape) return a->shape < b->shape ? -1 : 1;
    return a->extra < b->extra ? -1 : a->extra > b->extra;
}

static mode3 *sorted_modes(l_ctx *c, const flat *f, bool with_prefix) {
    mode3 *m = en_alloc(c->arena, sizeof *m * (size_t)(f->count ? f->count : 1));
    int64_t prefix = 1;
    for (int i = 0; i < f->count; i++) {
        m[i] = (mode3){f->stride[i], f->shape[i], with_prefix ? prefix : 0};
        prefix *= f->shape[i];
    }
    qsort(m, (size_t)f->count, sizeof *m, by_stride);
    return m;
}

l_node *l_complement(l_ctx *c, const l_node *a, int64_t cotarget) {
    flat fa = flatten(c, a), out = {0};
    mode3 *m = sorted_modes(c, &fa, false);
    int64_t current = 1;
    for (int i = 0; i < fa.count; i++) {
        if (m[i].stride == 0 || m[i].shape == 1) continue;
        if (current > m[i].shape * m[i].stride) {
            l_fail(c, "complement: the layout's modes overlap (a mode of shape %lld and stride %lld "
                      "starts inside the ones before it)", (long long)m[i].shape, (long long)m[i].stride);
            return NULL;
        }
        flat_push(c, &out, floor_div(m[i].stride, current), current);
        current = m[i].shape * m[i].stride;
    }
    flat_push(c, &out, ceil_div(cotarget, current), current);
    l_node *t = l_tuple(c, out.count); /* always a tuple before coalescing, as CuTe */
    for (int i = 0; i < out.count; i++) t->kids[i] = l_leaf(c, out.shape[i], out.stride[i]);
    return l_coalesce(c, t);
}

l_node *l_right_inverse(l_ctx *c, const l_node *a) {
    flat fa = flatten(c, a), out = {0};
    mode3 *m = sorted_modes(c, &fa, true);
    int64_t current = 1;
    for (int i = 0; i < fa.count; i++) {
        if (m[i].shape == 1) continue;
        if (current != m[i].stride) break;
        flat_push(c, &out, m[i].shape, m[i].extra);
        current = m[i].shape * m[i].stride;
    }
    l_node *t = l_tuple(c, out.count);
    for (int i = 0; i < out.count; i++) t->kids[i] = l_leaf(c, out.shape[i], out.stride[i]);
    return l_coalesce(c, t);
}

l_node *l_left_inverse(l_ctx *c, const l_node *a) {
    l_node *comp = l_complement(c, a, 1);
    return comp ? l_right_inverse(c, pair(c, a, comp)) : NULL;
}

/* ---- divides and products ----------------------------------------------------------------- */
typedef l_node *(*l_binary)(l_ctx *c, const l_node *a, const l_node *b);

/* mode i of A with tiler i, A's further modes unchanged */
static l_node *by_mode(l_ctx *c, const char *op, l_binary f, const l_node *a, const l_node *tiler) {
    if (!rank_fits(c, op, a, tiler)) return NULL;
    l_node *t = l_tuple(c, l_rank(a));
    for (int i = 0; i < t->count; i++) {
        t->kids[i] = i < tiler->count ? f(c, l_mode(a, i), tiler->kids[i]) : l_copy(c, l_mode(a, i));
        if (!t->kids[i]) return NULL;
    }
    return t;
}

l_node *l_logical_divide(l_ctx *c, const l_node *a, const l_node *tiler) {
    if (tiler->layouts) return by_mode(c, "logical_divide", l_logical_divide, a, tiler);
    l_node *rest = l_complement(c, tiler, l_size(a));
    return rest ? l_composition(c, a, pair(c, tiler, rest)) : NULL;
}

l_node *l_logical_product(l_ctx *c, const l_node *a, const l_node *tiler) {
    if (tiler->layouts) return by_mode(c, "logical_product", l_logical_product, a, tiler);
    l_node *rest = l_complement(c, a, l_size(a) * l_cosize(tiler));
    l_node *b = rest ? l_composition(c, rest, tiler) : NULL;
    return b ? pair(c, l_copy(c, a), b) : NULL;
}

/* CuTe's hier_unzip: ((tiles of each mode), (the rest of each mode, then A's other modes)) */
static l_node *unzip(l_ctx *c, const char *op, l_binary split, const l_node *a, const l_node *tiler) {
    if (!tiler->layouts) return split(c, a, tiler);
    if (!rank_fits(c, op, a, tiler)) return NULL;
    int n = tiler->count, rank = l_rank(a);
    l_node *inner = l_tuple(c, n), *outer = l_tuple(c, rank);
    for (int i = 0; i < n; i++) {
        l_node *s = unzip(c, op, split, l_mode(a, i), tiler->kids[i]);
        if (!s) return NULL;
        inner->kids[i] = (l_node *)l_mode(s, 0);
        outer->kids[i] = (l_node *)l_mode(s, 1);
    }
    for (int i = n; i < rank; i++) outer->kids[i] = l_copy(c, l_mode(a, i));
    return pair(c, inner, outer);
}

/* (tile, rest...) from (tile, (rest...)) */
static l_node *tiled(l_ctx *c, const l_node *zipped) {
    if (!zipped) return NULL;
    const l_node *rest = l_mode(zipped, 1);
    l_node *t = l_tuple(c, 1 + l_rank(rest));
    t->kids[0] = (l_node *)l_mode(zipped, 0);
    for (int i = 0; i < l_rank(rest); i++) t->kids[1 + i] = (l_node *)l_mode(rest, i);
    return t;
}

l_node *l_zipped_divide(l_ctx *c, const l_node *a, const l_node *tiler) {
    return unzip(c, "zipped_divide", l_logical_divide, a, tiler);
}
l_node *l_tiled_divide(l_ctx *c, const l_node *a, const l_node *tiler) {
    return tiled(c, l_zipped_divide(c, a, tiler));
}
l_node *l_zipped_product(l_ctx *c, const l_node *a, const l_node *tiler) {
    return unzip(c, "zipped_product", l_logical_product, a, tiler);
}
l_node *l_tiled_product(l_ctx *c, const l_node *a, const l_node *tiler) {
    return tiled(c, l_zipped_product(c, a, tiler));
}

/* a with 1:0 modes appended up to `rank` modes */
static l_node *append_to(l_ctx *c, const l_node *a, int rank) {
    if (l_rank(a) >= rank) return l_copy(c, a);
    l_node *t = l_tuple(c, rank);
    for (int i = 0; i < rank; i++) t->kids[i] = i < l_rank(a) ? l_copy(c, l_mode(a, i)) : l_leaf(c, 1, 0);
    return t;
}

/* blocked: A's layout repeated as blocks, B's across them; raked: B's interleaved inside */
static l_node *block_or_rake(l_ctx *c, const l_node *a, const l_node *b, bool raked) {
    int rank = l_rank(a) > l_rank(b) ? l_rank(a) : l_rank(b);
    l_node *p = l_logical_product(c, append_to(c, a, rank), append_to(c, b, rank));
    if (!p) return NULL;
    const l_node *first = l_mode(p, raked ? 1 : 0), *second = l_mode(p, raked ? 0 : 1);
    l_node *zipped = l_tuple(c, rank);
    for (int i = 0; i < rank; i++) zipped->kids[i] = pair(c, l_mode(first, i), l_mode(second, i));
    return coalesce_each(c, zipped);
}

l_node *l_blocked_product(l_ctx *c, const l_node *a, const l_node *b) { return block_or_rake(c, a, b, false); }
l_node *l_raked_product(l_ctx *c, const l_node *a, const l_node *b) { return block_or_rake(c, a, b, true); }

/* ---- constructors --------------------------------------------------------------------------- */
l_node *l_make_ordered(l_ctx *c, const int64_t *shape, const int64_t *order, int rank) {
    l_node *t = l_tuple(c, rank);
    int64_t stride = 1;
    for (int placed = 0; placed < rank; placed++) { /* the smallest order value not yet placed */
        int pick = -1;
        for (int i = 0; i < rank; i++)
            if (!t->kids[i] && (pick < 0 || order[i] < order[pick])) pick = i;
        t->kids[pick] = l_leaf(c, shape[pick], stride);
        stride *= shape[pick];
    }
    return rank == 1 ? t->kids[0] : t;
}

l_node *l_make_layout_tv(l_ctx *c, const l_node *thr, const l_node *val, l_node **tiler_out) {
    l_node *mn = l_raked_product(c, thr, val);
    if (!mn) return NULL;
    int64_t threads = l_size(thr), values = l_size(val);
    l_node *tv = pair(c, l_leaf(c, threads, 1), l_leaf(c, values, threads));
    l_node *tiler = l_tuple(c, l_rank(mn));
    tiler->layouts = true;
    for (int i = 0; i < tiler->count; i++) tiler->kids[i] = l_leaf(c, l_size(l_mode(mn, i)), 1);
    *tiler_out = tiler;
    return l_composition(c, l_right_inverse(c, mn), tv);
}
