"""@enigma.jit (seed 002): the seed's tiled GEMM with its accumulation and the layout-written
transpose, checked against NumPy (float64) from fresh random inputs; the MSL they trace to
(layout work folded into constants and plain index expressions); the divisibility error."""

import os
import re
import runpy

import numpy as np
import pytest

import enigma

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "layout_gemm.py")
ex = runpy.run_path(EXAMPLE, run_name="layout_gemm")
tiled_gemm, transpose = ex["tiled_gemm"], ex["transpose"]


def _gemm_reference(a, b, c):
    return c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("m,n,k", [(256, 256, 256), (32, 512, 80)])
def test_seed002_tiled_gemm_matches_numpy(rt, rng, m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    want = _gemm_reference(a, b, c)
    tiled_gemm(a, b, c, runtime=rt)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4 * np.sqrt(k))
    used_rt, compiled, _, grid, block = tiled_gemm.last_launch
    assert used_rt is rt
    assert grid == ((m // 16) * (n // 256), 1, 1) and block == (256, 1, 1)


@pytest.mark.parametrize("m,n,k", [(200, 256, 256), (37, 300, 19), (250, 260, 33)])
def test_seed002_tiled_gemm_handles_partial_tiles(rt, rng, m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    want = _gemm_reference(a, b, c)
    guard = np.full(64, 7.0, np.float32)   # memory right after C, never to be written
    c_and_guard = np.concatenate([c.ravel(), guard])
    c = c_and_guard[:m * n].reshape(m, n)
    tiled_gemm(a, b, c, runtime=rt)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4 * np.sqrt(k))
    assert (c_and_guard[m * n:] == 7.0).all()
    _, compiled, _, grid, _ = tiled_gemm.last_launch
    assert grid == (-(-m // 16) * -(-n // 256), 1, 1)
    src = compiled.source
    # only the partial modes are predicated, by a compare against the real extent
    if m % 16 and n % 256 == 0:
        assert "thrC_coord0 < %du ? blkC[thrC_off] : 0.0f" % m in src
        assert "if ((thrC_coord0 + 3u) < %du) {" % m in src
        assert "coord1" not in src
    if m % 16 and n % 256:
        assert "if (((thrC_coord0 + 3u) < %du) && ((thrC_coord1 + 3u) < %du)) {" % (m, n) in src


def test_partial_tiles_can_be_refused_and_say_why():
    a = enigma.make_tensor(np.zeros((200, 256), np.float32))
    with pytest.raises(enigma.InvalidArgumentError,
                       match=r"mode 0 of the tensor has 200 elements, not a multiple of the "
                             r"tile's 16 \(shape \(200,256\), tiler \(16,256\)\), and partial "
                             r"tiles are refused \(partial=False\)"):
        enigma.tensor_zipped_divide(a, (16, 256), partial=False)
    nested = enigma.make_tensor(np.zeros(60, np.float32), enigma.Layout((6, 10), (10, 1)))
    g = enigma.tensor_zipped_divide(nested, (4, 5))     # 6 rows: a partial tile of 2
    with pytest.raises(enigma.InvalidArgumentError, match="a partial tile needs a flat mode, "
                                                          "and this one is \\(4,5\\)"):
        enigma.tensor_zipped_divide(g, (3, 4))
    with pytest.raises(enigma.InvalidArgumentError, match="already has partial tiles"):
        enigma.tensor_zipped_divide(g[(None, 0)], (3, 4))
    with pytest.raises(enigma.InvalidArgumentError, match="in the padding of a partial tile"):
        g[((2, 0), (1, 0))]     # row 2 of the second row of tiles: row 6 of 6


def test_seed002_tiled_gemm_source_is_folded(rt, rng):
    a = rng.standard_normal((32, 64)).astype(np.float32)
    b = rng.standard_normal((64, 256)).astype(np.float32)
    c = np.zeros((32, 256), np.float32)
    tiled_gemm(a, b, c, runtime=rt)
    src = tiled_gemm.last_launch[1].source
    # one offset variable per tile and per thread view, in thread and threadgroup position
    # (the tile index needs no modulo on its outermost coordinate: launch keeps the grid
    # within the tiles)
    assert "uint blkC_tile = threadgroup_position_in_grid.x * 4096u;" in src
    assert "uint blkB_tile" not in src     # B's tiles all start at k = 0: folded away
    assert ("uint thrC_off = blkC_tile + (((thread_idx % 64u) * 4u) + "
            "(((thread_idx / 64u) % 4u) * 1024u));") in src
    # each value an offset constant: C rows are 256 apart, 4 values in a row
    stores = re.findall(r"blkC\[thrC_off(?: \+ (\d+)u)?\] = c_frag_(\d+);", src)
    assert [(int(o or 0), int(v)) for o, v in stores] == [
        (256 * i + j, 4 * i + j) for i in range(4) for j in range(4)]
    # the k loop is a compile-time bound; A and B load 4 distinct values each per step
    assert "for (int k = 0; k < 64; k += 1) {" in src
    assert len(re.findall(r"= blkA\[", src)) == 4 and len(re.findall(r"= blkB\[", src)) == 4
    assert "float a_frag_4 = blkA[(thrA_off + k) + 64u];" in src
    assert src.count("fma(") == 16
    for leftover in ("Layout", "composition", "zipped", "* 1u", "* 1)", "* 0u", "+ 0u"):
        assert leftover not in src
    # 4 x 2 tiles: the threadgroup index splits into the tile's row (modulo 4) and column
    tiled_gemm(np.zeros((64, 8), np.float32), np.zeros((8, 512), np.float32),
               np.zeros((64, 512), np.float32), runtime=rt)
    src = tiled_gemm.last_launch[1].source
    assert ("uint blkC_tile = ((threadgroup_position_in_grid.x % 4u) * 8192u) + "
            "((threadgroup_position_in_grid.x / 4u) * 256u);") in src


def test_layout_transpose_matches_numpy(rt, rng):
    for m, n in ((96, 160), (256, 32)):
        s = rng.standard_normal((m, n)).astype(np.float32)
        d = np.zeros((n, m), np.float32)
        transpose(s, d, runtime=rt)
        np.testing.assert_array_equal(d, s.T)


def test_jit_arguments_and_launch_errors(rt):
    with pytest.raises(enigma.InvalidArgumentError, match="parameter mS is an enigma.Tensor; "
                                                          "pass a NumPy array"):
        transpose([1, 2, 3], np.zeros(3, np.float32), runtime=rt)
    with pytest.raises(enigma.InvalidArgumentError, match="transpose: missing a required"):
        transpose(np.zeros((32, 32), np.float32), runtime=rt)

    @enigma.kernel
    def two(x, y):
        pass

    with pytest.raises(enigma.InvalidArgumentError, match=r"kernel two takes 2 arguments "
                                                          r"\(x, y\), got 1"):
        two(enigma.make_tensor(np.zeros(4, np.float32)))


def test_jit_default_runtime_follows_the_environment(monkeypatch):
    import importlib
    jit_module = importlib.import_module("enigma.jit")
    monkeypatch.setenv("ENIGMA_BACKEND", "cpu")
    monkeypatch.setattr(jit_module, "_default", {})
    assert enigma.default_runtime().backend == "cpu"
    assert enigma.default_runtime() is enigma.default_runtime()


def test_readme_layout_example_runs(tmp_path, monkeypatch):
    readme = os.path.join(os.path.dirname(EXAMPLE), "..", "README.md")
    text = open(readme, encoding="utf-8").read()
    section = text[text.index("\n### Tensors and `@enigma.jit`\n"):]
    section = section[:section.index("\n## ")]
    block = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    path = tmp_path / "readme_layout.py"     # from a file, so the tracer reads its source
    path.write_text(block)
    monkeypatch.setenv("ENIGMA_BACKEND", os.environ.get("ENIGMA_TEST_BACKEND", "cpu"))
    ns = runpy.run_path(str(path), run_name="readme_layout")
    np.testing.assert_array_equal(ns["d"], ns["s"].T)
    assert "uint thrS_off = " in ns["transpose"].last_launch[1].source


def test_tensors_over_enigma_buffers(rt, rng):
    m, n = 64, 96
    s = rng.standard_normal((m, n)).astype(np.float32)
    bs, bd = rt.buffer(s), rt.buffer(nbytes=s.nbytes)
    mS = enigma.make_tensor(bs, enigma.Layout((m, n), (n, 1)), dtype=enigma.f32)
    mD = enigma.make_tensor(bd, enigma.Layout((n, m), (m, 1)), dtype=enigma.f32)
    transpose(mS, mD, runtime=rt)
    np.testing.assert_array_equal(bd.numpy(np.float32).reshape(n, m), s.T)
    with pytest.raises(enigma.InvalidArgumentError, match="needs layout= and dtype="):
        enigma.make_tensor(bs)
    with pytest.raises(enigma.InvalidArgumentError, match="outside the buffer of 24576 bytes"):
        enigma.make_tensor(bs, enigma.Layout((m + 1, n), (n, 1)), dtype=enigma.f32)
