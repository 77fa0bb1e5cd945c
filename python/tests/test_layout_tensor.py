"""Tensors over layouts (seed 002): host-side indexing, slicing and dividing against NumPy,
kernel-side views whose layout arithmetic folds to constants in the MSL, and the errors
(non-divisible shapes, wrong ranks, out-of-range slices)."""

import re

import numpy as np
import pytest

import enigma


def test_host_tensor_indexes_like_numpy(rng):
    a = rng.standard_normal((6, 10)).astype(np.float32)
    t = enigma.make_tensor(a)
    assert t.layout == enigma.Layout((6, 10), (10, 1))
    for _ in range(20):
        i, j = int(rng.integers(6)), int(rng.integers(10))
        assert t[(i, j)] == a[i, j]
    row = t[(4, None)]
    assert row.layout == enigma.Layout(10, 1)
    np.testing.assert_array_equal([row[j] for j in range(10)], a[4])
    col = t[(None, 7)]
    np.testing.assert_array_equal([col[i] for i in range(6)], a[:, 7])
    t[(2, 3)] = 5.0
    assert a[2, 3] == 5.0


def test_host_tensor_other_layouts(rng):
    d = np.zeros((8, 12), np.float32)
    dt = enigma.make_tensor(d, enigma.Layout((12, 8), (1, 12)))   # d seen transposed
    s = rng.standard_normal((12, 8)).astype(np.float32)
    for i in range(12):
        for j in range(8):
            dt[(i, j)] = s[i, j]
    np.testing.assert_array_equal(d, s.T)


def test_zipped_divide_tiles_match_numpy_blocks(rng):
    a = rng.standard_normal((16, 24)).astype(np.float32)
    g = enigma.tensor_zipped_divide(enigma.make_tensor(a), (4, 8))
    assert enigma.size(g, mode=[1]) == 12 and enigma.size(g, mode=[0]) == 32
    for tile in range(12):
        bm, bn = tile % 4, tile // 4        # mode 1 is column-major over (4, 3) tiles
        blk = g[(None, tile)]
        got = np.array([[blk[(i, j)] for j in range(8)] for i in range(4)])
        np.testing.assert_array_equal(got, a[4 * bm:4 * bm + 4, 8 * bn:8 * bn + 8])


def test_partial_tiles_on_the_host(rng):
    a = rng.standard_normal((6, 10)).astype(np.float32)
    g = enigma.tensor_zipped_divide(enigma.make_tensor(a), (4, 4))
    assert enigma.size(g, mode=[1]) == 6          # 2 x 3 tiles, the last row and column partial
    for tile in range(6):
        bm, bn = tile % 2, tile // 2
        blk = g[(None, tile)]
        for i in range(4):
            for j in range(4):
                if 4 * bm + i < 6 and 4 * bn + j < 10:
                    assert blk[(i, j)] == a[4 * bm + i, 4 * bn + j]
                else:
                    with pytest.raises(enigma.InvalidArgumentError, match="in the padding"):
                        blk[(i, j)]


def test_tv_partition_covers_the_tile_once(rng):
    thr = enigma.make_ordered_layout((4, 8), order=(1, 0))
    val = enigma.make_ordered_layout((2, 2), order=(1, 0))
    tiler, tv = enigma.make_layout_tv(thr, val)
    assert tiler == (8, 16)
    a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    blk = enigma.make_tensor(a)
    part = enigma.tensor_composition(blk, tv, tiler)
    seen = sorted(part[(t, None)][v] for t in range(32) for v in range(4))
    assert seen == list(range(128))


def test_errors_name_what_is_wrong():
    a = np.zeros((6, 10), np.float32)
    t = enigma.make_tensor(a)
    with pytest.raises(enigma.InvalidArgumentError, match="rank 3 indexes a tensor of rank 2"):
        t[(1, 2, 3)]
    with pytest.raises(enigma.InvalidArgumentError, match="index 6 is outside mode 0"):
        t[(6, None)]
    with pytest.raises(enigma.InvalidArgumentError, match="index -1 is outside mode 1"):
        t[(0, -1)]
    with pytest.raises(enigma.InvalidArgumentError,
                       match="mode 1 of the tensor has 10 elements, not a multiple of the "
                             "tile's 4"):
        enigma.tensor_zipped_divide(t, (2, 4), partial=False)
    with pytest.raises(enigma.InvalidArgumentError, match="tiler .* has rank 3 but the tensor"):
        enigma.tensor_zipped_divide(t, (2, 2, 2))
    with pytest.raises(enigma.InvalidArgumentError, match="the tensor's tile is \\(6,10\\) but "
                                                          "the tiler is \\(2,5\\)"):
        enigma.tensor_composition(t, enigma.Layout(10), (2, 5))
    with pytest.raises(enigma.InvalidArgumentError, match="reaches offsets up to 69"):
        enigma.make_tensor(a, enigma.Layout((7, 10), (10, 1)))
    with pytest.raises(enigma.InvalidArgumentError, match="not C-contiguous"):
        enigma.make_tensor(np.zeros((4, 4), np.float32).T)
    with pytest.raises(enigma.InvalidArgumentError, match="inside a kernel"):
        t.load()


# ---- kernels on tensors -----------------------------------------------------------------

@enigma.jit
def scale_rows(mX: enigma.Tensor, mY: enigma.Tensor, factor):
    """Y[i, :] = factor * X[i, :], one thread per row, 8 rows per threadgroup."""
    gX = enigma.tensor_zipped_divide(mX, (8, mX.shape[1]))
    gY = enigma.tensor_zipped_divide(mY, (8, mY.shape[1]))

    @enigma.kernel
    def scale(blkX, blkY, k):
        t = enigma.thread_position_in_threadgroup
        x = blkX[(t, None)].load()
        y = blkY[(t, None)]
        y.store([v * k for v in x])

    scale(gX, gY, factor).launch(grid=enigma.size(gX, mode=[1]), block=8)


def test_kernel_on_tensors_matches_numpy(rt, rng):
    x = rng.standard_normal((64, 12)).astype(np.float32)
    y = np.zeros_like(x)
    scale_rows(x, y, 3.0, runtime=rt)
    np.testing.assert_allclose(y, 3.0 * x.astype(np.float64), rtol=1e-6)


def test_kernel_source_is_plain_index_code():
    x = np.zeros((64, 12), np.float32)
    gX = enigma.tensor_zipped_divide(enigma.make_tensor(x), (8, 12))

    @enigma.kernel
    def rows(blkX, blkY):
        t = enigma.thread_position_in_threadgroup
        src = blkX[(t, None)]
        dst = blkY[(t, None)]
        values = src.load()
        dst.store(values)

    src = rows(gX, gX).source
    # the tile of threadgroup g starts at g * 8 rows of 12; the row of thread t at t * 12
    assert "uint blkX_tile = threadgroup_position_in_grid.x * 96u;" in src
    assert "uint src_off = blkX_tile + ((t % 8u) * 12u);" in src
    loads = re.findall(r"float values_(\d+) = blkX\[src_off(?: \+ (\d+)u)?\];", src)
    assert [int(c or 0) for _, c in loads] == list(range(12))
    assert "blkY[dst_off + 11u] = values_11;" in src
    for leftover in ("Layout", "composition", "* 1u", "* 1)", "+ 0u", "* 0u"):
        assert leftover not in src


def test_kernel_errors():
    x = np.zeros((16, 4), np.float32)
    g = enigma.tensor_zipped_divide(enigma.make_tensor(x), (8, 4))

    @enigma.kernel
    def out_of_range(blk):
        blk[(8, None)].load()

    with pytest.raises(enigma.TraceError, match="index 8 is outside mode 0 of the tensor, "
                                                "which has 8 elements"):
        out_of_range(g).source

    @enigma.kernel
    def wrong_rank(blk):
        blk[(0,)].load()

    with pytest.raises(enigma.TraceError, match="rank 1 indexes a tensor of rank 2"):
        wrong_rank(g).source

    @enigma.kernel
    def short_store(blk):
        t = enigma.thread_position_in_threadgroup
        blk[(t, None)].store([1.0, 2.0])

    with pytest.raises(enigma.TraceError, match="fragment has 2 values but the tensor view "
                                                "has 4"):
        short_store(g).source

    @enigma.kernel
    def symbolic_fragment_index(blk):
        t = enigma.thread_position_in_threadgroup
        f = blk[(t, None)].load()
        f[t]

    with pytest.raises(enigma.TraceError, match="index it with Python integers"):
        symbolic_fragment_index(g).source

    @enigma.kernel
    def float_coordinate(blk):
        blk[(enigma.f32(1.5), None)].load()

    with pytest.raises(enigma.TraceError, match="coordinate must be an integer, not f32"):
        float_coordinate(g).source

    with pytest.raises(enigma.InvalidArgumentError, match="grid has 3 threadgroups but blk "
                                                          "has 2 tiles"):
        out_of_range(g).launch(grid=3, block=8)
    with pytest.raises(enigma.InvalidArgumentError, match=r"launch a 1-D grid \(2, 1, 1\)"):
        out_of_range(g).launch(grid=(1, 2), block=8)
    with pytest.raises(enigma.InvalidArgumentError, match="needs the kernel's arguments"):
        out_of_range.launch(grid=2, block=8)


def test_repeated_element_loads_once_and_copies_on_write():
    a = np.zeros((4, 8), np.float32)
    bcast = enigma.make_tensor(a, enigma.Layout((4, 8), (8, 0)))   # row i's first element

    @enigma.kernel
    def k(v, out):
        t = enigma.thread_position_in_grid
        f = v[(t, None)].load()
        f[3] = f[3] * 2.0          # its own register now; the others still share one
        out[(t, None)].store(f)

    src = k(bcast, enigma.make_tensor(np.zeros((4, 8), np.float32))).source
    assert len(re.findall(r"= v\[", src)) == 1
    assert re.search(r"float frag\w* = f_0 \* 2\.0f;", src)

    @enigma.kernel
    def k2(v):
        t = enigma.thread_position_in_grid
        f = v[(t, None)].load()
        with enigma.for_range(0, 4):
            f[1] = f[1] + 1.0

    with pytest.raises(enigma.TraceError, match="shares its register"):
        k2(bcast).source
