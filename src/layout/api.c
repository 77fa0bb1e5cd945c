/* api.c — the public enigma_layout_* functions (include/enigma_layout.h) over algebra.c and
 * text.c. Each call works in a scratch arena and copies its result into the arena of the
 * enigma_layout it returns, so a layout owns exactly its own nodes. */
#include <stdlib.h>

#include "../../include/enigma_layout.h"
#include "../runtime/runtime.h"
#include "layout.h"

struct enigma_layout {
    en_arena arena;
    l_node *root;
};

static enigma_status wrap(const char *fn, l_ctx *c, const l_node *result, enigma_layout **out) {
    if (!result || c->error[0] || c->arena->out_of_memory) {
        enigma_status st = c->arena->out_of_memory ? ENIGMA_ERROR_OUT_OF_MEMORY : ENIGMA_ERROR_INVALID_ARGUMENT;
        return en_fail(st, "%s: %s", fn, c->arena->out_of_memory ? "out of memory" : c->error);
    }
    enigma_layout *l = calloc(1, sizeof *l);
    if (!l) return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    en_arena_init(&l->arena);
    l_ctx keep = {.arena = &l->arena};
    l->root = l_copy(&keep, result);
    if (l->arena.out_of_memory) {
        enigma_layout_destroy(l);
        return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    *out = l;
    return ENIGMA_OK;
}

/* a layout, not a tuple of layouts, where one is needed */
static bool is_layout(l_ctx *c, const char *what, const enigma_layout *l) {
    if (!l->root->layouts) return true;
    return l_fail(c, "%s is a tuple of layouts; a single layout (shape:stride) is needed here", what);
}

#define BEGIN(fn, ...)                                                                              \
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);                  \
    *out = NULL;                                                                                    \
    const void *args_[] = {__VA_ARGS__};                                                            \
    for (size_t i_ = 0; i_ < EN_COUNT(args_); i_++)                                                 \
        if (!args_[i_]) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: a layout is NULL", fn);   \
    en_arena scratch_;                                                                              \
    en_arena_init(&scratch_);                                                                       \
    l_ctx c_ = {.arena = &scratch_};                                                                \
    l_ctx *c = &c_

#define END(fn, result)                                                                             \
    enigma_status st_ = wrap(fn, c, (result), out);                                                 \
    en_arena_free(&scratch_);                                                                       \
    return st_

enigma_status enigma_layout_parse(const char *text, enigma_layout **out) {
    if (!text) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_layout_parse: text is NULL");
    BEGIN("enigma_layout_parse", text);
    END("enigma_layout_parse", l_parse(c, text));
}

char *enigma_layout_text(const enigma_layout *l) {
    if (!l) return NULL;
    en_buf b = {0};
    l_print(l->root, &b);
    return b.data; /* malloc'ed: enigma_free */
}

void enigma_layout_destroy(enigma_layout *l) {
    if (!l) return;
    en_arena_free(&l->arena);
    free(l);
}

int64_t enigma_layout_size(const enigma_layout *l) { return l ? l_size(l->root) : 0; }
int64_t enigma_layout_cosize(const enigma_layout *l) { return l ? l_cosize(l->root) : 0; }
int enigma_layout_rank(const enigma_layout *l) { return l ? l_rank(l->root) : 0; }
int enigma_layout_depth(const enigma_layout *l) { return l ? l_depth(l->root) : 0; }

enigma_status enigma_layout_mode(const enigma_layout *l, int i, enigma_layout **out) {
    BEGIN("enigma_layout_mode", l);
    if (i < 0 || i >= l_rank(l->root)) l_fail(c, "mode %d of a layout of rank %d", i, l_rank(l->root));
    END("enigma_layout_mode", c->error[0] ? NULL : l_mode(l->root, i));
}

enigma_status enigma_layout_offset(const enigma_layout *l, int64_t index, int64_t *out) {
    if (!l || !out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_layout_offset: l or out is NULL");
    if (l->root->layouts)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_layout_offset: a tuple of layouts maps no index");
    if (index < 0 || index >= l_size(l->root))
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_layout_offset: index %lld is outside the layout's %lld elements",
                       (long long)index, (long long)l_size(l->root));
    *out = l_index(l->root, index);
    return ENIGMA_OK;
}

/* the operations that take one layout */
#define UNARY(name, call)                                                                           \
    enigma_status enigma_layout_##name(const enigma_layout *l, enigma_layout **out) {               \
        BEGIN("enigma_layout_" #name, l);                                                           \
        END("enigma_layout_" #name, is_layout(c, "the layout", l) ? call(c, l->root) : NULL);       \
    }
UNARY(coalesce, l_coalesce)
UNARY(right_inverse, l_right_inverse)
UNARY(left_inverse, l_left_inverse)

/* the operations that take a layout and a tiler (a layout or a tuple of layouts) */
#define BINARY(name, call, b_may_be_tuple)                                                          \
    enigma_status enigma_layout_##name(const enigma_layout *a, const enigma_layout *b,              \
                                       enigma_layout **out) {                                       \
        BEGIN("enigma_layout_" #name, a, b);                                                        \
        bool ok_ = is_layout(c, "the first argument", a) &&                                        \
                   ((b_may_be_tuple) || is_layout(c, "the second argument", b));                   \
        END("enigma_layout_" #name, ok_ ? call(c, a->root, b->root) : NULL);                        \
    }
BINARY(composition, l_composition, true)
BINARY(logical_divide, l_logical_divide, true)
BINARY(zipped_divide, l_zipped_divide, true)
BINARY(tiled_divide, l_tiled_divide, true)
BINARY(logical_product, l_logical_product, true)
BINARY(zipped_product, l_zipped_product, true)
BINARY(tiled_product, l_tiled_product, true)
BINARY(blocked_product, l_blocked_product, false)
BINARY(raked_product, l_raked_product, false)

enigma_status enigma_layout_complement(const enigma_layout *l, int64_t cotarget, enigma_layout **out) {
    BEGIN("enigma_layout_complement", l);
    if (cotarget < 1) l_fail(c, "cotarget %lld: it must be at least 1", (long long)cotarget);
    END("enigma_layout_complement", !c->error[0] && is_layout(c, "the layout", l) ? l_complement(c, l->root, cotarget) : NULL);
}

enigma_status enigma_layout_make_ordered(const int64_t *shape, const int64_t *order, int rank, enigma_layout **out) {
    BEGIN("enigma_layout_make_ordered", shape, order);
    if (rank < 1 || rank > 64) l_fail(c, "rank %d: it must be 1 to 64", rank);
    for (int i = 0; !c->error[0] && i < rank; i++)
        if (shape[i] < 1) l_fail(c, "shape[%d] is %lld: shapes are at least 1", i, (long long)shape[i]);
    END("enigma_layout_make_ordered", c->error[0] ? NULL : l_make_ordered(c, shape, order, rank));
}

enigma_status enigma_layout_make_tv(const enigma_layout *threads, const enigma_layout *values,
                                    enigma_layout **tiler, enigma_layout **tv) {
    enigma_layout **out = tv;
    if (!tiler) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_layout_make_tv: tiler is NULL");
    *tiler = NULL;
    BEGIN("enigma_layout_make_tv", threads, values);
    l_node *tile = NULL;
    l_node *result = is_layout(c, "the thread layout", threads) && is_layout(c, "the value layout", values)
                         ? l_make_layout_tv(c, threads->root, values->root, &tile)
                         : NULL;
    enigma_status st = wrap("enigma_layout_make_tv", c, result, tv);
    if (st == ENIGMA_OK) {
        st = wrap("enigma_layout_make_tv", c, tile, tiler);
        if (st != ENIGMA_OK) {
            enigma_layout_destroy(*tv);
            *tv = NULL;
        }
    }
    en_arena_free(&scratch_);
    return st;
}
