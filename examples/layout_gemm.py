"""Seed 002's tiled GEMM and a transposing copy, written with enigma's layout algebra.

    PYTHONPATH=python python3 examples/layout_gemm.py      # default device (cuda if present)
    ENIGMA_BACKEND=cpu PYTHONPATH=python python3 examples/layout_gemm.py

tiled_gemm is the seed's, with the accumulation the seed leaves out. Where it differs from
the seed's text, and why:
  - A and B enter as (M, N) tensors at k = 0 (A[m, k] repeated along n with stride 0, B[k, n]
    repeated along m), so the three tensors are divided and partitioned by the same tiler
    and thread-value layout, exactly the seed's three lines; the kernel walks k by shifting
    the A and B views by their k stride.
  - the block counts come from mode 1 of the divided C: (M/16) x (N/256) tiles. (The seed's
    size(gA, mode=[1]) * size(gB, mode=[1]) counts A's and B's tiles, not C's.)
  - the kernel is bound to its arguments before launching: inner(gA, gB, gC, tv).launch(...)
    (the seed's inner.launch(...) leaves them out).
grid= counts threadgroups and block= is the threads of one (Metal's dispatchThreadgroups);
each threadgroup computes the C tile of its index in mode 1 of gC. Sizes need not be
multiples of the tile: the last tiles are then partial, their loads and stores past the
edges predicated off.
"""

import numpy as np

import enigma


@enigma.jit
def tiled_gemm(mA: enigma.Tensor, mB: enigma.Tensor, mC: enigma.Tensor):
    """C += A @ B for row-major A (M, K), B (K, N), C (M, N)."""
    # Thread-value layout: 256 threads, each handling a 4×4 tile
    thr = enigma.make_ordered_layout((4, 64), order=(1, 0))
    val = enigma.make_ordered_layout((4, 4), order=(1, 0))
    tiler_mn, tv_layout = enigma.make_layout_tv(thr, val)

    # A and B over the (M, N) plane at k = 0; the k mode of each is its stride along k
    a_m, a_k = mA.layout[0], mA.layout[1]
    b_k, b_n = mB.layout[0], mB.layout[1]
    n = mC.layout[1]
    mA_mn = enigma.make_tensor(mA, enigma.make_layout(a_m, enigma.Layout(n.shape, 0)))
    mB_mn = enigma.make_tensor(mB, enigma.make_layout(enigma.Layout(a_m.shape, 0), b_n))
    K, stride_ak, stride_bk = enigma.size(a_k), a_k.stride, b_k.stride

    # Partition tensors into block tiles
    gA = enigma.tensor_zipped_divide(mA_mn, tiler_mn)
    gB = enigma.tensor_zipped_divide(mB_mn, tiler_mn)
    gC = enigma.tensor_zipped_divide(mC, tiler_mn)

    @enigma.kernel
    def inner(blkA, blkB, blkC, tv):
        thread_idx = enigma.thread_position_in_grid

        # Per-thread fragments
        thrA = enigma.tensor_composition(blkA, tv, tiler_mn)[(thread_idx, None)]
        thrB = enigma.tensor_composition(blkB, tv, tiler_mn)[(thread_idx, None)]
        thrC = enigma.tensor_composition(blkC, tv, tiler_mn)[(thread_idx, None)]

        # Load, compute, store
        c_frag = thrC.load()
        with enigma.for_range(0, K) as k:
            a_frag = thrA.shifted(k, stride_ak).load()
            b_frag = thrB.shifted(k, stride_bk).load()
            for v in range(len(c_frag)):
                c_frag[v] = enigma.fma(a_frag[v], b_frag[v], c_frag[v])
        thrC.store(c_frag)

    n_blocks_m = enigma.size(gC, mode=[1, 0])
    n_blocks_n = enigma.size(gC, mode=[1, 1])
    inner(gA, gB, gC, tv_layout).launch(
        grid=(n_blocks_m * n_blocks_n, 1, 1),
        block=(enigma.size(tv_layout, mode=[0]), 1, 1),
    )


@enigma.jit
def transpose(mS: enigma.Tensor, mD: enigma.Tensor):
    """D = S.T for row-major S (M, N) and D (N, M): the CuTe tutorial's first example, a
    copy between two layouts of the same (M, N) coordinates."""
    M, N = mS.shape
    mDt = enigma.make_tensor(mD, enigma.Layout((M, N), (1, M)))   # D seen as (M, N)
    thr = enigma.make_ordered_layout((8, 32), order=(1, 0))
    val = enigma.make_ordered_layout((4, 1), order=(1, 0))
    tiler, tv = enigma.make_layout_tv(thr, val)                    # 32 x 32 tiles

    gS = enigma.tensor_zipped_divide(mS, tiler)
    gD = enigma.tensor_zipped_divide(mDt, tiler)

    @enigma.kernel
    def copy(blkS, blkD, tv):
        t = enigma.thread_position_in_threadgroup
        thrS = enigma.tensor_composition(blkS, tv, tiler)[(t, None)]
        thrD = enigma.tensor_composition(blkD, tv, tiler)[(t, None)]
        thrD.store(thrS.load())

    copy(gS, gD, tv).launch(grid=(enigma.size(gS, mode=[1]), 1, 1),
                            block=(enigma.size(tv, mode=[0]), 1, 1))


def check_gemm(rng, M, N, K):
    """tiled_gemm on fresh random M x K and K x N matrices against float64 NumPy"""
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    tiled_gemm(a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


def main():
    rng = np.random.default_rng()
    check_gemm(rng, 256, 256, 256)
    rt, compiled = tiled_gemm.last_launch[:2]
    print("tiled_gemm 256x256x256 on %s: matches NumPy" % rt.backend)
    print(compiled.source)

    s = rng.standard_normal((96, 160)).astype(np.float32)
    d = np.zeros((160, 96), np.float32)
    transpose(s, d)
    np.testing.assert_array_equal(d, s.T)
    print("transpose 96x160: matches NumPy")

    # sizes that are not multiples of the 16x256 tile: the last tiles are partial, and the
    # loads and stores past the matrices' edges are predicated off
    check_gemm(rng, 200, 300, 77)
    print("tiled_gemm 200x300x77 (partial tiles): matches NumPy")


if __name__ == "__main__":
    main()
