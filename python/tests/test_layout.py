"""The layout algebra (src/layout, enigma.layout) against pycute, CuTe's Python reference
(PyPI nvidia-cutlass, a test dependency): every operation on 10,000 random layouts (nested
shapes up to depth 3, random strides), the same result or, where pycute refuses (an
assertion), an InvalidArgumentError from enigma. Plus the worked examples of CuTe's
documentation with their printed results."""

import random

import pytest

import enigma

pycute = pytest.importorskip("pycute")

N = 10_000


def _tuple_tree(x):
    return tuple(_tuple_tree(e) for e in x) if isinstance(x, tuple) else int(x)


def _ours(layout):
    return enigma.Layout(_tuple_tree(layout.shape), _tuple_tree(layout.stride))


def _same(got, want):
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(
            _same(g, w) for g, w in zip(got, want))
    want_t = (_tuple_tree(want.shape), _tuple_tree(want.stride))
    return (got.shape, got.stride) == want_t


def _shape(rng, depth):
    if depth == 0 or rng.random() < 0.45:
        return rng.choice([1, 1, 2, 2, 2, 3, 4, 4, 5, 6, 8])
    return tuple(_shape(rng, depth - 1) for _ in range(rng.randint(1, 3)))


def _stride_like(rng, shape):
    if isinstance(shape, tuple):
        return tuple(_stride_like(rng, s) for s in shape)
    return rng.choice([0, 1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64])


def _layout(rng, depth=3, compact=False):
    shape = _shape(rng, depth)
    if compact:
        return pycute.Layout(shape)
    return pycute.Layout(shape, _stride_like(rng, shape))


def _tiler(rng, a):
    """a layout, or a tuple of layouts no longer than a's rank (a by-mode tiler)"""
    if rng.random() < 0.5:
        return _layout(rng, depth=1)
    return tuple(_layout(rng, depth=1) for _ in range(rng.randint(1, len(a))))


def _to_ours(t):
    return tuple(_to_ours(x) for x in t) if isinstance(t, tuple) else _ours(t)


def _check(op, ours, theirs, args, stats):
    try:
        want = theirs(*args)
    except (AssertionError, ZeroDivisionError, IndexError, TypeError):
        with pytest.raises(enigma.InvalidArgumentError):
            ours(*[_to_ours(a) if not isinstance(a, int) else a for a in args])
        stats["refused"] += 1
        return
    got = ours(*[_to_ours(a) if not isinstance(a, int) else a for a in args])
    assert _same(got, want), "%s%s: enigma %s, pycute %s" % (op, args, got, want)
    stats["equal"] += 1


CASES = {
    "coalesce": (lambda rng: (_layout(rng),), enigma.coalesce, pycute.coalesce),
    "composition": (lambda rng: ((a := _layout(rng)), _tiler(rng, a)), enigma.composition,
                    pycute.composition),
    "complement": (lambda rng: (_layout(rng), rng.choice([1, 16, 64, 100, 256, 1024])),
                   enigma.complement, pycute.complement),
    "right_inverse": (lambda rng: (_layout(rng),), enigma.right_inverse, pycute.right_inverse),
    "left_inverse": (lambda rng: (_layout(rng),), enigma.left_inverse, pycute.left_inverse),
    "logical_divide": (lambda rng: ((a := _layout(rng, compact=True)), _tiler(rng, a)),
                       enigma.logical_divide, pycute.logical_divide),
    "zipped_divide": (lambda rng: ((a := _layout(rng, compact=True)), _tiler(rng, a)),
                      enigma.zipped_divide, pycute.zipped_divide),
    "tiled_divide": (lambda rng: ((a := _layout(rng, compact=True)), _tiler(rng, a)),
                     enigma.tiled_divide, pycute.tiled_divide),
    "logical_product": (lambda rng: ((a := _layout(rng, compact=True)), _tiler(rng, a)),
                        enigma.logical_product, pycute.logical_product),
    "zipped_product": (lambda rng: ((a := _layout(rng, compact=True)), _tiler(rng, a)),
                       enigma.zipped_product, pycute.zipped_product),
    "tiled_product": (lambda rng: ((a := _layout(rng, compact=True)), _tiler(rng, a)),
                      enigma.tiled_product, pycute.tiled_product),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_operation_matches_pycute_on_random_layouts(op):
    make_args, ours, theirs = CASES[op]
    seed = random.SystemRandom().randrange(2 ** 32)
    rng = random.Random(seed)
    stats = {"equal": 0, "refused": 0}
    for _ in range(N):
        _check(op, ours, theirs, make_args(rng), stats)
    print("%s: seed %d: %d equal, %d refused by both" % (op, seed, stats["equal"],
                                                         stats["refused"]))
    assert stats["equal"] >= N // 4  # most random cases are valid, so results are compared


def test_size_cosize_rank_depth_and_offsets_match_pycute():
    rng = random.Random(random.SystemRandom().randrange(2 ** 32))
    for _ in range(N):
        a = _layout(rng)
        ours = _ours(a)
        assert enigma.size(ours) == pycute.size(a)
        assert enigma.cosize(ours) == pycute.cosize(a)
        assert enigma.rank(ours) == len(a)
        assert enigma.depth(ours) == _depth(a.shape)
        i = rng.randrange(pycute.size(a))
        assert ours(i) == a(i)


def _depth(shape):
    return 1 + max(_depth(s) for s in shape) if isinstance(shape, tuple) else 0


def _raked_product_ref(a, b):
    """CuTe's raked_product from pycute's primitives (pycute has none)."""
    r = max(len(a), len(b))

    def append(l):
        if len(l) >= r:
            return l
        modes = [l[i] for i in range(len(l))] + [pycute.Layout(1, 0)] * (r - len(l))
        return pycute.make_layout(*modes)

    p = pycute.logical_product(append(a), append(b))
    zipped = pycute.make_layout(*[pycute.make_layout(p[1][i], p[0][i]) for i in range(r)])
    return pycute.coalesce(zipped, tuple([1] * r))


def test_make_layout_tv_matches_its_definition_over_pycute():
    """The CuTe DSL's make_layout_tv: raked_product of the thread and value layouts, its
    right inverse composed with the compact (threads, values) layout, the tile's shape."""
    rng = random.Random(random.SystemRandom().randrange(2 ** 32))
    for _ in range(2000):
        ts = (rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4, 8, 16, 32]))
        vs = (rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]))
        to, vo = rng.choice([(0, 1), (1, 0)]), rng.choice([(0, 1), (1, 0)])
        thr, val = enigma.make_ordered_layout(ts, to), enigma.make_ordered_layout(vs, vo)
        p_thr = pycute.Layout(thr.shape, thr.stride)
        p_val = pycute.Layout(val.shape, val.stride)
        mn = _raked_product_ref(p_thr, p_val)
        want_tv = pycute.composition(pycute.right_inverse(mn),
                                     pycute.Layout((pycute.size(p_thr), pycute.size(p_val))))
        want_tiler = tuple(pycute.size(mn[i]) for i in range(len(mn)))
        tiler, tv = enigma.make_layout_tv(thr, val)
        assert tiler == want_tiler and _same(tv, want_tv), (ts, vs, to, vo, tiler, tv, want_tv)


def test_cute_documentation_examples():
    """Worked examples of CuTe's layout-algebra documentation, with their printed results."""
    L = enigma.Layout
    assert str(enigma.composition(L((6, 2), (8, 2)), L((4, 3), (3, 1)))) == "((2,2),3):((24,2),8)"
    assert str(enigma.complement(L(4, 1), 24)) == "6:4"
    assert str(enigma.complement(L(6, 4), 24)) == "4:1"
    assert str(enigma.complement(L((4, 6), (1, 4)), 24)) == "1:0"
    assert str(enigma.complement(L((2, 2), (1, 6)), 24)) == "(3,2):(2,12)"
    assert str(enigma.logical_divide(L((4, 2, 3), (2, 1, 8)), L(4, 2))) == \
        "((2,2),(2,3)):((4,1),(2,8))"
    assert str(enigma.logical_product(L((2, 2), (4, 1)), L(6, 1))) == \
        "((2,2),(2,3)):((4,1),(2,8))"
    # a 2-D tiler divides mode by mode (the documentation's 9x32 example)
    a = L((9, (4, 8)), (59, (13, 1)))
    assert str(enigma.logical_divide(a, (L(3, 3), L((2, 4), (1, 8))))) == \
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"
    assert str(enigma.zipped_divide(a, (L(3, 3), L((2, 4), (1, 8))))) == \
        "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"
    # seed 002's thread-value partition
    tiler, tv = enigma.make_layout_tv(enigma.make_ordered_layout((4, 32), order=(1, 0)),
                                      enigma.make_ordered_layout((4, 4), order=(1, 0)))
    assert tiler == (16, 128)
    assert str(tv) == "((32,4),(4,4)):((64,4),(16,1))"


def test_errors_name_the_problem():
    L = enigma.Layout
    with pytest.raises(enigma.InvalidArgumentError, match="does not divide"):
        enigma.composition(L((4, 3), (1, 5)), L(2, 3))
    with pytest.raises(enigma.InvalidArgumentError, match="the tiler has 3 modes but the layout only 2"):
        enigma.logical_divide(L((4, 4)), (2, 2, 2))
    with pytest.raises(enigma.InvalidArgumentError, match="different structures"):
        L((4, 4), (1,))
    with pytest.raises(enigma.InvalidArgumentError, match="overlap"):
        enigma.complement(L((8, 2), (1, 2)), 16)


def test_the_example_file_runs():
    """examples/layouts.py, as the README points to it, prints CuTe's results."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    out = subprocess.run([sys.executable, os.path.join(root, "examples", "layouts.py")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert out.returncode == 0, out.stdout
    assert "((4,8),(4,4)):((32,1),(128,8))" in out.stdout
    assert "((32,4),(4,4)):((64,4),(16,1))" in out.stdout
    assert "complement of 4:1 in 24: 6:4" in out.stdout
