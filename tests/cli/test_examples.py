"""Every example in examples/ (the seed kernels among them) runs through `enigma run` on
the cpu backend, and its results match a reference computed here in higher precision
(float64, or exact integers) from fresh random inputs."""
import numpy as np
import pytest

from .helpers import BACKEND, EXAMPLES

RNG = np.random.default_rng()


def run_ok(enigma, *args):
    r = enigma("run", *args)
    assert r.returncode == 0, f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r


def test_seed004_two_stage_reduction(enigma, cpu, tmp_path):
    n = int(RNG.integers(500, 5000))
    groups = (n + 127) // 128
    x = RNG.uniform(-1, 1, n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run_ok(enigma, EXAMPLES / "seed004_two_stage_reduction.metal", "--backend", BACKEND, "--threadgroups", groups,
           "--threads", 128, f"data=@{tmp_path / 'x.npy'}", f"count={n}", f"sums=zeros:{groups}",
           "-o", f"sums={tmp_path / 'sums.npy'}")
    sums = np.load(tmp_path / "sums.npy")
    padded = np.zeros(groups * 128)
    padded[:n] = x
    ref = padded.reshape(groups, 128).sum(axis=1)
    mag = np.abs(padded).reshape(groups, 128).sum(axis=1)
    assert sums.shape == (groups,)
    assert np.all(np.abs(sums - ref) <= 1e-6 * mag + 1e-7), (sums, ref)


def test_seed003_reduce(enigma, cpu, tmp_path):
    threads = int(RNG.choice([64, 128, 256, 512, 1024]))
    groups = int(RNG.integers(1, 40))
    x = RNG.integers(-100000, 100000, groups * threads).astype(np.int32)
    np.save(tmp_path / "x.npy", x)
    run_ok(enigma, EXAMPLES / "seed003_reduce.metal", "--backend", BACKEND, "--threadgroups", groups, "--threads",
           threads, "--tgmem", f"0={4 * threads}", f"input=@{tmp_path / 'x.npy'}", "output=zeros:1",
           "-o", f"output={tmp_path / 'out.npy'}")
    out = np.load(tmp_path / "out.npy")
    assert out.dtype == np.int32 and out.shape == (1,)
    assert int(out[0]) == int(x.astype(np.int64).sum())


def test_seed004_row_sum(enigma, cpu, tmp_path):
    rows, cols = int(RNG.integers(3, 20)), int(RNG.integers(100, 2000))
    m = RNG.standard_normal((rows, cols)).astype(np.float32)
    np.save(tmp_path / "m.npy", m)
    run_ok(enigma, EXAMPLES / "seed004_row_sum.metal", "--backend", BACKEND, "--threadgroups", rows, "--threads", 256,
           f"matrix=@{tmp_path / 'm.npy'}", f"sums=zeros:{rows}", f"cols={cols}", "-o", f"sums={tmp_path / 's.npy'}")
    sums = np.load(tmp_path / "s.npy")
    ref = m.astype(np.float64).sum(axis=1)
    mag = np.abs(m.astype(np.float64)).sum(axis=1)
    assert np.all(np.abs(sums - ref) <= 1e-6 * mag), (sums, ref)


@pytest.mark.parametrize("kernel,lanes", [("scale", 1), ("scale_vec4", 4)])
def test_seed004_scale(enigma, cpu, tmp_path, kernel, lanes):
    n = int(RNG.integers(64, 512)) * 4
    h = RNG.uniform(-60, 60, n).astype(np.float16)
    factor = float(np.float32(RNG.uniform(0.1, 4)))
    np.save(tmp_path / "h.npy", h.reshape(-1, 4) if lanes == 4 else h)
    run_ok(enigma, EXAMPLES / "seed004_scale.metal", "-k", kernel, "--backend", BACKEND, "--grid", n // lanes,
           "--threads", 64, f"data=@{tmp_path / 'h.npy'}", f"factor={factor!r}", "-o", f"data={tmp_path / 'o.npy'}")
    out = np.load(tmp_path / "o.npy").reshape(-1)
    ref = h.astype(np.float64) * factor
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2 ** -10, atol=2 ** -24)


def test_seed004_safe_scale_early_return(enigma, cpu, tmp_path):
    n = int(RNG.integers(300, 1000))
    count = n - int(RNG.integers(1, 200))
    h = RNG.uniform(-100, 100, n).astype(np.float16)
    np.save(tmp_path / "h.npy", h)
    run_ok(enigma, EXAMPLES / "seed004_scale.metal", "-k", "safe_scale", "--backend", BACKEND, "--grid", n,
           "--threads", 128, f"data=@{tmp_path / 'h.npy'}", f"count={count}", "-o", f"data={tmp_path / 'o.npy'}")
    out = np.load(tmp_path / "o.npy")
    ref = h.copy()
    ref[:count] = (h[:count].astype(np.float64) * 2).astype(np.float16)
    np.testing.assert_array_equal(out, ref)


def simd_groups(n, tg):
    """(start, length) of each SIMD group when n threads run by threads in groups of tg."""
    out = []
    for g0 in range(0, n, tg):
        size = min(tg, n - g0)
        out += [(g0 + s, min(32, size - s)) for s in range(0, size, 32)]
    return out


def test_seed004_stencil_shuffles(enigma, cpu, tmp_path):
    n = 64 * int(RNG.integers(2, 10))
    x = RNG.standard_normal(n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run_ok(enigma, EXAMPLES / "seed004_simd_patterns.metal", "-k", "stencil", "--backend", BACKEND, "--grid", n,
           "--threads", 64, f"data=@{tmp_path / 'x.npy'}", f"out=zeros:{n}", "-o", f"out={tmp_path / 'o.npy'}")
    out = np.load(tmp_path / "o.npy")
    xd = x.astype(np.float64)
    ref = np.empty(n)
    for start, length in simd_groups(n, 64):
        for l in range(length):
            i = start + l
            left = xd[i - 1] if l > 0 else xd[i]           # shuffle_up: lane 0 keeps its own value
            right = xd[i + 1] if l < length - 1 else xd[i]  # shuffle_down: the last lane keeps its own
            ref[i] = 0.25 * left + 0.5 * xd[i] + 0.25 * right
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_seed004_prefix_sum_partial_simd_groups(enigma, cpu, tmp_path):
    tg = int(RNG.choice([40, 50, 96]))
    n = tg * int(RNG.integers(2, 6)) - int(RNG.integers(1, 20))  # the last threadgroup shrinks
    x = RNG.integers(-1000, 1000, n).astype(np.int32)
    np.save(tmp_path / "x.npy", x)
    run_ok(enigma, EXAMPLES / "seed004_simd_patterns.metal", "-k", "prefix_sum", "--backend", BACKEND, "--grid", n,
           "--threads", tg, f"data=@{tmp_path / 'x.npy'}", f"out=zeros:{n}", "-o", f"out={tmp_path / 'o.npy'}")
    out = np.load(tmp_path / "o.npy")
    ref = np.empty(n, np.int64)
    for start, length in simd_groups(n, tg):
        ref[start:start + length] = np.cumsum(x[start:start + length].astype(np.int64))
    np.testing.assert_array_equal(out, ref)


def test_seed004_broadcast_first(enigma, cpu, tmp_path):
    n = 32 * int(RNG.integers(2, 10))
    x = RNG.standard_normal(n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run_ok(enigma, EXAMPLES / "seed004_simd_patterns.metal", "-k", "broadcast_first", "--backend", BACKEND,
           "--grid", n, "--threads", 64, f"data=@{tmp_path / 'x.npy'}", f"out=zeros:{n}",
           "-o", f"out={tmp_path / 'o.npy'}")
    out = np.load(tmp_path / "o.npy")
    ref = np.repeat(x.astype(np.float64)[::32] * 2, 32)
    np.testing.assert_array_equal(out, ref.astype(np.float32))


def test_seed000_two_level_sum(enigma, cpu, tmp_path):
    tg = int(RNG.choice([64, 128, 256]))
    groups = int(RNG.integers(2, 64))
    x = RNG.uniform(-1, 1, groups * tg).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    src = EXAMPLES / "seed000_reduce.metal"
    run_ok(enigma, src, "-k", "reduce_threadgroup", "--backend", BACKEND, "--threadgroups", groups, "--threads", tg,
           f"A=@{tmp_path / 'x.npy'}", f"PartialOut=zeros:{groups}", "-o", f"PartialOut={tmp_path / 'p.npy'}")
    partial = np.load(tmp_path / "p.npy")
    xd = x.astype(np.float64).reshape(groups, tg)
    assert np.all(np.abs(partial - xd.sum(axis=1)) <= 1e-6 * np.abs(xd).sum(axis=1))
    final_tg = (groups + 31) // 32 * 32
    run_ok(enigma, src, "-k", "reduce_final", "--backend", BACKEND, "--threadgroups", 1, "--threads", final_tg,
           f"Partial=@{tmp_path / 'p.npy'}", "Result=zeros:1", f"count={groups}", "-o", f"Result={tmp_path / 'r.npy'}")
    result = np.load(tmp_path / "r.npy")
    assert abs(float(result[0]) - xd.sum()) <= 1e-6 * np.abs(xd).sum()


def test_seed001_tree_reduction(enigma, cpu, tmp_path):
    n = int(RNG.integers(300, 5000))
    blocks = (n + 255) // 256
    x = RNG.uniform(-1, 1, n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run_ok(enigma, EXAMPLES / "seed001_reduce_sum.metal", "--backend", BACKEND, "--threadgroups", blocks,
           "--threads", 256, f"input=@{tmp_path / 'x.npy'}", f"output=zeros:{blocks}", f"n={n}",
           "-o", f"output={tmp_path / 'o.npy'}")
    out = np.load(tmp_path / "o.npy")
    padded = np.zeros(blocks * 256)
    padded[:n] = x
    ref = padded.reshape(blocks, 256).sum(axis=1)
    assert np.all(np.abs(out - ref) <= 1e-6 * np.abs(padded).reshape(blocks, 256).sum(axis=1) + 1e-7)


def gemm_inputs(tmp_path, m, k, n):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    return ref, bound


@pytest.mark.parametrize("kernel", ["naive_gemm", "tiled_gemm", "simd_gemm"])
def test_seed002_gemm(enigma, cpu, tmp_path, kernel):
    if kernel == "simd_gemm":  # whole 8x8 tiles, one SIMD group per tile
        m, k, n = (8 * int(RNG.integers(1, 8)) for _ in range(3))
        geometry = ["--threadgroups", f"{n // 8},{m // 8}", "--threads", 32]
    elif kernel == "tiled_gemm":  # any size: whole 16x16 threadgroups load each tile, edges are masked
        m, k, n = (int(RNG.integers(5, 70)) for _ in range(3))
        geometry = ["--threadgroups", f"{(n + 15) // 16},{(m + 15) // 16}", "--threads", "16,16"]
    else:
        m, k, n = (int(RNG.integers(5, 70)) for _ in range(3))
        geometry = ["--grid", f"{n},{m}", "--threads", "8,8"]
    ref, bound = gemm_inputs(tmp_path, m, k, n)
    sizes = [f"K={k}", f"N={n}"] + ([f"M={m}"] if kernel == "tiled_gemm" else [])
    run_ok(enigma, EXAMPLES / "seed002_gemm.metal", "-k", kernel, "--backend", BACKEND, *geometry,
           f"A=@{tmp_path / 'a.npy'}", f"B=@{tmp_path / 'b.npy'}", f"C=zeros:{m * n}", *sizes,
           "-o", f"C={tmp_path / 'c.npy'}")
    c = np.load(tmp_path / "c.npy").reshape(m, n)
    assert np.all(np.abs(c - ref) <= 1e-5 * bound + 1e-6), np.max(np.abs(c - ref) / (bound + 1e-6))


def test_every_example_is_tested():
    tested = {"seed000_reduce", "seed001_reduce_sum", "seed002_gemm", "seed003_reduce",
              "seed004_two_stage_reduction", "seed004_row_sum", "seed004_scale", "seed004_simd_patterns",
              "vector_add"}
    examples = {p.stem for p in EXAMPLES.glob("*.metal")}
    assert examples <= tested, f"examples without a test here: {sorted(examples - tested)}"
