/* text.c — CuTe's notation for layouts, read and written.
 *
 *   layout := ituple ':' ituple          (4,(2,3)):(1,(4,8)) — shape and stride, congruent
 *           | INT                        8 — the layout 8:1
 *   tiler  := layout | '(' tiler (',' tiler)* ')'   (4:1,(2,3):(1,2)) — a tuple of layouts
 *   ituple := INT | '(' ituple (',' ituple)* ')'
 *
 * A parenthesised list without a ':' after it is a tuple of layouts (CuTe's by-mode tiler),
 * so (4,8) tiles mode 0 by 4:1 and mode 1 by 8:1. Printing gives the same text back with no
 * spaces; a tuple of layouts prints as its layouts in parentheses. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

#define UNSET_STRIDE INT64_MIN /* a leaf read before its ':' (if any) */

typedef struct reader {
    l_ctx *c;
    const char *text, *p;
} reader;

static void skip_space(reader *r) {
    while (isspace((unsigned char)*r->p)) r->p++;
}

static bool expected(reader *r, const char *what) {
    return l_fail(r->c, "layout '%s': expected %s at column %d", r->text, what, (int)(r->p - r->text) + 1);
}

static bool read_int(reader *r, int64_t *out) {
    skip_space(r);
    char *end;
    errno = 0;
    long long v = strtoll(r->p, &end, 10);
    if (end == r->p || errno) return expected(r, errno ? "a number that fits in 64 bits" : "a number");
    r->p = end;
    *out = v;
    return true;
}

/* an int tuple, or (when `allow_layouts`) a list that may hold layouts */
static l_node *read_item(reader *r, bool allow_layouts);
static bool has_unset(const l_node *n);

static l_node *read_atom(reader *r, bool allow_layouts) {
    skip_space(r);
    if (*r->p != '(') {
        int64_t v = 0;
        return read_int(r, &v) ? l_leaf(r->c, v, UNSET_STRIDE) : NULL;
    }
    r->p++;
    l_node *items[64];
    int n = 0;
    for (;;) {
        if (n == 64) {
            l_fail(r->c, "layout '%s': more than 64 modes in one tuple", r->text);
            return NULL;
        }
        if (!(items[n++] = read_item(r, allow_layouts))) return NULL;
        skip_space(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (*r->p == ')') {
            r->p++;
            break;
        }
        expected(r, "',' or ')'");
        return NULL;
    }
    l_node *t = l_tuple(r->c, n);
    for (int i = 0; i < n; i++) {
        t->kids[i] = items[i];
        /* a tuple that holds a layout (or a tuple of them) is a tuple of layouts */
        if (items[i]->layouts || !has_unset(items[i])) t->layouts = true;
    }
    return t;
}

/* gives `shape` the strides of `stride`, which must have the same tree */
static bool set_strides(reader *r, l_node *shape, const l_node *stride) {
    if (l_is_leaf(shape) != l_is_leaf(stride) || (!l_is_leaf(shape) && shape->count != stride->count))
        return l_fail(r->c, "layout '%s': the shape and the stride have different structures", r->text);
    if (l_is_leaf(shape)) {
        if (shape->shape < 1) return l_fail(r->c, "layout '%s': a shape of %lld (shapes are at least 1)", r->text,
                                            (long long)shape->shape);
        shape->stride = stride->shape;
        return true;
    }
    for (int i = 0; i < shape->count; i++)
        if (!set_strides(r, shape->kids[i], stride->kids[i])) return false;
    return true;
}

static bool has_unset(const l_node *n) {
    if (l_is_leaf(n)) return n->stride == UNSET_STRIDE;
    for (int i = 0; i < n->count; i++)
        if (has_unset(n->kids[i])) return true;
    return false;
}

static l_node *read_item(reader *r, bool allow_layouts) {
    const char *start = r->p;
    l_node *atom = read_atom(r, allow_layouts);
    if (!atom) return NULL;
    skip_space(r);
    if (*r->p != ':') return atom;
    if (atom->layouts || !has_unset(atom)) {
        r->p = start;
        expected(r, "a shape before ':' (a tuple of numbers)");
        return NULL;
    }
    r->p++;
    l_node *stride = read_atom(r, false);
    if (!stride || !set_strides(r, atom, stride)) return NULL;
    atom->layouts = false;
    return atom;
}

/* what is left unset: a number n is the layout n:1; a list of them a tuple of layouts */
static bool finish(reader *r, l_node *n) {
    if (l_is_leaf(n)) {
        if (n->stride == UNSET_STRIDE) {
            if (n->shape < 1) return l_fail(r->c, "layout '%s': a shape of %lld (shapes are at least 1)", r->text,
                                            (long long)n->shape);
            n->stride = 1;
        }
        return true;
    }
    if (!has_unset(n) && !n->layouts) return true; /* a layout with a tuple shape */
    n->layouts = true;
    for (int i = 0; i < n->count; i++)
        if (!finish(r, n->kids[i])) return false;
    return true;
}

l_node *l_parse(l_ctx *c, const char *text) {
    reader r = {c, text, text};
    l_node *n = read_item(&r, true);
    if (!n) return NULL;
    skip_space(&r);
    if (*r.p) {
        expected(&r, "the end of the layout");
        return NULL;
    }
    return finish(&r, n) ? n : NULL;
}

static void print_tree(const l_node *n, bool strides, en_buf *out) {
    if (l_is_leaf(n)) {
        en_buf_printf(out, "%lld", (long long)(strides ? n->stride : n->shape));
        return;
    }
    en_buf_puts(out, "(");
    for (int i = 0; i < n->count; i++) {
        if (i) en_buf_puts(out, ",");
        print_tree(n->kids[i], strides, out);
    }
    en_buf_puts(out, ")");
}

void l_print(const l_node *n, en_buf *out) {
    if (n->layouts) {
        en_buf_puts(out, "(");
        for (int i = 0; i < n->count; i++) {
            if (i) en_buf_puts(out, ",");
            l_print(n->kids[i], out);
        }
        en_buf_puts(out, ")");
        return;
    }
    print_tree(n, false, out);
    en_buf_puts(out, ":");
    print_tree(n, true, out);
}
