"""layout.py — CuTe's layout algebra (seed 002) in Python, over libenigma's enigma_layout_*.

    >>> import enigma
    >>> a = enigma.Layout((6, 2), (8, 2))
    >>> enigma.composition(a, enigma.Layout((4, 3), (3, 1)))
    ((2,2),3):((24,2),8)

Layouts are immutable values: `shape` and `stride` are nested tuples of ints of the same
structure, printed in CuTe's notation. A tiler (the second argument of the divides and
products) may be a Layout, an int (n means n:1), or a tuple of those, which applies mode by
mode, as in CuTe. Every operation is computed by the C library (src/layout/); errors come back
as InvalidArgumentError with its message.
"""

import ctypes

from . import _lib
from .errors import InvalidArgumentError


def _is_tuple(x):
    return isinstance(x, tuple)


def _text(x):
    """CuTe notation for a shape or stride tree."""
    if _is_tuple(x):
        return "(" + ",".join(_text(e) for e in x) + ")"
    return str(int(x))


def _congruent(a, b):
    if _is_tuple(a) != _is_tuple(b):
        return False
    return not _is_tuple(a) or (len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b)))


def _compact_stride(shape, current=1):
    """CuTe's default: column-major (the first mode fastest)."""
    if _is_tuple(shape):
        out = []
        for s in shape:
            st, current = _compact_stride(s, current)
            out.append(st)
        return tuple(out), current
    return current, current * shape


def _normalise(x):
    if _is_tuple(x) or isinstance(x, list):
        return tuple(_normalise(e) for e in x)
    return int(x)


class Layout:
    """A hierarchical shape:stride layout. Layout(shape) has CuTe's compact column-major
    strides; Layout(n) is n:1."""

    __slots__ = ("shape", "stride")

    def __init__(self, shape, stride=None):
        shape = _normalise(shape)
        stride = _compact_stride(shape)[0] if stride is None else _normalise(stride)
        if not _congruent(shape, stride):
            raise InvalidArgumentError("Layout: shape %s and stride %s have different structures"
                                       % (_text(shape), _text(stride)))
        self.shape, self.stride = shape, stride

    def __str__(self):
        return "%s:%s" % (_text(self.shape), _text(self.stride))

    def __repr__(self):
        return "Layout(%s)" % self

    def __eq__(self, other):
        return isinstance(other, Layout) and (self.shape, self.stride) == (other.shape, other.stride)

    def __hash__(self):
        return hash((self.shape, self.stride))

    def __len__(self):
        return len(self.shape) if _is_tuple(self.shape) else 1

    def __getitem__(self, i):
        if _is_tuple(self.shape):
            return Layout(self.shape[i], self.stride[i])
        if i != 0:
            raise IndexError("mode %d of a layout of rank 1" % i)
        return self

    def __call__(self, index):
        """The offset of the index'th element (colexicographic order)."""
        out = ctypes.c_int64()
        with _Handle(self) as h:
            _L().check(_L().enigma_layout_offset(h, int(index), ctypes.byref(out)))
        return out.value

    def size(self):
        return size(self)

    def cosize(self):
        return cosize(self)


# ---- the C library ------------------------------------------------------------------------------

def _L():
    return _lib.lib()


def _tiler_text(t):
    if isinstance(t, Layout):
        return str(t)
    if _is_tuple(t) or isinstance(t, list):
        return "(" + ",".join(_tiler_text(e) for e in t) + ")"
    return "%d:1" % int(t)


class _Handle:
    """An enigma_layout parsed from a Layout or a tiler, destroyed on exit."""

    def __init__(self, value):
        self.text = _tiler_text(value)
        self.handle = ctypes.c_void_p()

    def __enter__(self):
        _L().check(_L().enigma_layout_parse(self.text.encode(), ctypes.byref(self.handle)))
        return self.handle

    def __exit__(self, *exc):
        _L().enigma_layout_destroy(self.handle)


def _parse_tree(text, i=0):
    """(tree, next index) for one int tuple of CuTe notation."""
    if text[i] == "(":
        items, i = [], i + 1
        while True:
            item, i = _parse_tree(text, i)
            items.append(item)
            if text[i] == ",":
                i += 1
                continue
            return tuple(items), i + 1  # ')'
    j = i
    while j < len(text) and (text[j].isdigit() or text[j] == "-"):
        j += 1
    return int(text[i:j]), j


def _from_text(text):
    """A Layout, or a tuple of Layouts (a tiler), from the C library's printing."""
    if text.startswith("(") and ":" in text:
        # a tuple of layouts prints as (L1,L2,...): its first element ends before a ':' of
        # its own only when it is a layout, not a shape
        depth, i = 0, 0
        for i, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                break
        if i + 1 == len(text):  # the whole text is one parenthesised group: tuple of layouts
            return tuple(_from_text(part) for part in _split_top(text[1:-1]))
    shape, i = _parse_tree(text)
    stride, _ = _parse_tree(text, i + 1)
    return Layout(shape, stride)


def _split_top(text):
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _result(fn, *args):
    L = _L()
    out = ctypes.c_void_p()
    handles = [_Handle(a) for a in args]
    try:
        hs = [h.__enter__() for h in handles]
        L.check(fn(*hs, ctypes.byref(out)))
        return _take(out)
    finally:
        for h in handles:
            h.__exit__()


def _take(handle):
    L = _L()
    try:
        raw = L.enigma_layout_text(handle)
        text = ctypes.string_at(raw).decode()
        L.enigma_free(raw)
        return _from_text(text)
    finally:
        L.enigma_layout_destroy(handle)


def _as_layout(x):
    return x if isinstance(x, Layout) else Layout(x)


# ---- the algebra ----------------------------------------------------------------------------------

def make_layout(*layouts):
    """The layout whose modes are the given layouts (CuTe's make_layout(L1, L2, ...))."""
    if len(layouts) == 1 and not isinstance(layouts[0], Layout):
        layouts = tuple(layouts[0])
    layouts = [_as_layout(l) for l in layouts]
    return Layout(tuple(l.shape for l in layouts), tuple(l.stride for l in layouts))


def _product(shape):
    if _is_tuple(shape):
        p = 1
        for s in shape:
            p *= _product(s)
        return p
    return shape


def size(x, mode=None):
    """Elements of a layout, a shape or a tensor; `mode=[i, j]` picks a (nested) mode first,
    as seed 002's enigma.size(x, mode=[1])."""
    layout = getattr(x, "layout", x)
    shape = layout.shape if isinstance(layout, Layout) else _normalise(layout)
    for m in mode or ():
        shape = shape[m] if _is_tuple(shape) else shape
    return _product(shape)


def cosize(layout):
    """L(size - 1) + 1: the extent of the offsets a layout reaches."""
    with _Handle(_as_layout(layout)) as h:
        return int(_L().enigma_layout_cosize(h))


def rank(layout):
    return len(_as_layout(layout))


def depth(layout):
    def d(s):
        return 1 + max(d(e) for e in s) if _is_tuple(s) else 0
    return d(_as_layout(layout).shape)


def coalesce(layout):
    return _result(_L().enigma_layout_coalesce, _as_layout(layout))


def composition(a, b):
    return _result(_L().enigma_layout_composition, _as_layout(a), b)


def complement(layout, cotarget=1):
    L = _L()
    out = ctypes.c_void_p()
    with _Handle(_as_layout(layout)) as h:
        L.check(L.enigma_layout_complement(h, int(cotarget), ctypes.byref(out)))
    return _take(out)


def right_inverse(layout):
    return _result(_L().enigma_layout_right_inverse, _as_layout(layout))


def left_inverse(layout):
    return _result(_L().enigma_layout_left_inverse, _as_layout(layout))


def logical_divide(a, tiler):
    return _result(_L().enigma_layout_logical_divide, _as_layout(a), tiler)


def zipped_divide(a, tiler):
    return _result(_L().enigma_layout_zipped_divide, _as_layout(a), tiler)


def tiled_divide(a, tiler):
    return _result(_L().enigma_layout_tiled_divide, _as_layout(a), tiler)


def logical_product(a, tiler):
    return _result(_L().enigma_layout_logical_product, _as_layout(a), tiler)


def zipped_product(a, tiler):
    return _result(_L().enigma_layout_zipped_product, _as_layout(a), tiler)


def tiled_product(a, tiler):
    return _result(_L().enigma_layout_tiled_product, _as_layout(a), tiler)


def blocked_product(a, b):
    return _result(_L().enigma_layout_blocked_product, _as_layout(a), _as_layout(b))


def raked_product(a, b):
    return _result(_L().enigma_layout_raked_product, _as_layout(a), _as_layout(b))


def make_ordered_layout(shape, order):
    """A compact layout of a flat `shape` whose strides grow in the order `order` gives:
    make_ordered_layout((4, 8), order=(1, 0)) is (4,8):(8,1)."""
    shape, order = _normalise(shape), _normalise(order)
    if not _is_tuple(shape):
        shape, order = (shape,), (order,)
    if len(shape) != len(order):
        raise InvalidArgumentError("make_ordered_layout: shape %s and order %s differ in rank"
                                   % (_text(shape), _text(order)))
    L = _L()
    n = len(shape)
    out = ctypes.c_void_p()
    L.check(L.enigma_layout_make_ordered((ctypes.c_int64 * n)(*shape), (ctypes.c_int64 * n)(*order),
                                         n, ctypes.byref(out)))
    return _take(out)


def make_layout_tv(thr_layout, val_layout):
    """The CuTe DSL's make_layout_tv: (tiler_mn, layout_tv) for threads laid out by
    thr_layout each holding values laid out by val_layout; tiler_mn is a tuple of ints."""
    L = _L()
    tiler, tv = ctypes.c_void_p(), ctypes.c_void_p()
    with _Handle(_as_layout(thr_layout)) as t, _Handle(_as_layout(val_layout)) as v:
        L.check(L.enigma_layout_make_tv(t, v, ctypes.byref(tiler), ctypes.byref(tv)))
    tiles = _take(tiler)
    return tuple(size(l) for l in tiles), _take(tv)


__all__ = ["Layout", "make_layout", "size", "cosize", "rank", "depth", "coalesce", "composition",
           "complement", "right_inverse", "left_inverse", "logical_divide", "zipped_divide",
           "tiled_divide", "logical_product", "zipped_product", "tiled_product",
           "blocked_product", "raked_product", "make_ordered_layout", "make_layout_tv"]
