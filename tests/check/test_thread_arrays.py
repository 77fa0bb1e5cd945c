"""Checked mode bounds-checks indices into thread (private) memory: local arrays, arrays of
arrays, arrays in local structs and vectors. A thread's bad index is reported at the
subscript with the array's name, the index, the length and the thread; the access is left
out (a load gives zero, a store is dropped), so the other threads' results are exactly what
they are without the bad thread. References are computed here with NumPy from random
inputs; which threads go out of range is chosen at random too."""
import os
import pathlib
import re
import secrets
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import checkharness  # noqa: E402

GROUP = 32
GRID = 96  # three threadgroups of one SIMD group each

# Every thread fills a private window of 8 values from x, overwrites a[st[i]] with -1,
# then reads a[ld[i]] (zero when out of range) and a weighted sum of the window.
WINDOW = """
#include <metal_stdlib>
using namespace metal;
kernel void window(device const float *x [[buffer(0)]],
                   device const int *st [[buffer(1)]],
                   device const int *ld [[buffer(2)]],
                   device float *out [[buffer(3)]],
                   uint i [[thread_position_in_grid]])
{
    float a[8];
    for (int k = 0; k < 8; k++)
        a[k] = x[i * 8 + k];
    a[st[i]] = -1.0f;
    float picked = a[ld[i]];
    float s = 0.0f;
    for (int k = 0; k < 8; k++)
        s += a[k] * float(k + 1);
    out[i] = s + 100.0f * picked;
}
"""


def line_of(source, text):
    """the 1-based line of source that holds text"""
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


STORE_LINE, LOAD_LINE = line_of(WINDOW, "a[st[i]]"), line_of(WINDOW, "a[ld[i]]")


@pytest.fixture
def rng():
    seed = int(os.environ.get("ENIGMA_SEED", secrets.randbits(32)))
    print(f"ENIGMA_SEED={seed}")
    return np.random.default_rng(seed)


def run(tmp_path, source, grid, threads, arrays, out_name, out_count, check=True):
    cli = checkharness.cli_path()
    assert cli is not None, "the enigma CLI is not built"
    kernel = tmp_path / "k.metal"
    kernel.write_text(source)
    args = [str(cli), "run", str(kernel), "--backend", "cpu", "--grid", str(grid), "--threads", str(threads)]
    for name, a in arrays.items():
        np.save(tmp_path / f"{name}.npy", a)
        args.append(f"{name}=@{tmp_path / (name + '.npy')}")
    args += [f"{out_name}=zeros:{out_count}", "-o", f"{out_name}={tmp_path / 'out.npy'}"]
    if check:
        args.append("--check")
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    text = r.stdout + r.stderr
    reports = [m for m in map(checkharness.REPORT.match, text.splitlines()) if m]
    out = np.load(tmp_path / "out.npy") if (tmp_path / "out.npy").exists() else None
    return r.returncode, reports, text, out


def window_reference(x, st, ld):
    out = np.zeros(len(st), np.float64)
    for i in range(len(st)):
        a = x[i * 8:(i + 1) * 8].astype(np.float64)
        if 0 <= st[i] < 8:
            a[st[i]] = -1.0
        picked = a[ld[i]] if 0 <= ld[i] < 8 else 0.0
        out[i] = (a * np.arange(1, 9)).sum() + 100.0 * picked
    return out


def thread_text(gid):
    return (f"thread ({gid % GROUP},0,0) of threadgroup ({gid // GROUP},0,0) "
            f"[grid position ({gid},0,0)]")


def window_inputs(rng):
    x = rng.uniform(-1, 1, GRID * 8).astype(np.float32)
    st = rng.integers(0, 8, GRID).astype(np.int32)
    ld = rng.integers(0, 8, GRID).astype(np.int32)
    return x, st, ld


def test_in_range_indices_report_nothing(tmp_path, rng):
    x, st, ld = window_inputs(rng)
    rc, reports, text, out = run(tmp_path, WINDOW, GRID, GROUP, {"x": x, "st": st, "ld": ld}, "out", GRID)
    assert rc == 0 and not reports, text
    np.testing.assert_allclose(out, window_reference(x, st, ld), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("bad_store, bad_load", [(-1, 8), (8, -1), (-7, 9)],
                         ids=["store-negative-load-at-length", "store-at-length-load-negative", "further-out"])
def test_only_the_bad_threads_are_reported_and_the_others_are_unaffected(tmp_path, rng, bad_store, bad_load):
    x, st, ld = window_inputs(rng)
    # one thread stores out of range, another loads out of range: not lane 0, and each
    # beside a thread whose own array a stray store or load would reach
    s_gid, l_gid = rng.choice(np.r_[1:GROUP - 1, GROUP + 1:GRID - 1], 2, replace=False)
    st[s_gid], ld[l_gid] = bad_store, bad_load
    rc, reports, text, out = run(tmp_path, WINDOW, GRID, GROUP, {"x": x, "st": st, "ld": ld}, "out", GRID)
    assert rc == 4, text
    found = {(m.group("kind"), int(m.group("line"))): m.group("msg") for m in reports}
    assert set(found) == {("out-of-bounds", STORE_LINE), ("out-of-bounds", LOAD_LINE)}, text
    store, load = found[("out-of-bounds", STORE_LINE)], found[("out-of-bounds", LOAD_LINE)]
    assert store.startswith(f"store of 4 bytes at thread array 'a' index {bad_store}, but it has 8 elements"), store
    assert thread_text(s_gid) in store and "the store was suppressed (1 time)" in store, store
    assert load.startswith(f"load of 4 bytes at thread array 'a' index {bad_load}, but it has 8 elements"), load
    assert thread_text(l_gid) in load and "the load was given zero (1 time)" in load, load
    # the columns point at the subscript
    cols = {int(m.group("line")): int(m.group("col")) for m in reports}
    assert cols[STORE_LINE] == WINDOW.splitlines()[STORE_LINE - 1].index("[") + 1
    assert cols[LOAD_LINE] == WINDOW.splitlines()[LOAD_LINE - 1].index("[") + 1
    # every thread, the bad ones included, gets what the reference says (the bad store is
    # dropped, the bad load reads zero)
    np.testing.assert_allclose(out, window_reference(x, st, ld), rtol=1e-5, atol=1e-4)


NESTED = """
#include <metal_stdlib>
using namespace metal;
struct Pair { float head; float tail[3]; };
kernel void nested(device const float *x [[buffer(0)]],
                   device const int *r [[buffer(1)]],
                   device const int *c [[buffer(2)]],
                   device float *out [[buffer(3)]],
                   uint i [[thread_position_in_grid]])
{
    float m[2][3];
    Pair p;
    float4 v = float4(x[i], 2.0f * x[i], 3.0f, 4.0f);
    p.head = x[i];
    for (int k = 0; k < 3; k++) {
        m[0][k] = x[i] + float(k);
        m[1][k] = x[i] - float(k);
        p.tail[k] = float(k) * x[i];
    }
    m[r[i]][c[i]] = 10.0f;
    p.tail[c[i]] = 20.0f;
    v[c[i]] = 30.0f;
    out[i] = m[0][0] + m[0][1] + m[0][2] + m[1][0] + m[1][1] + m[1][2]
           + p.head + p.tail[0] + p.tail[1] + p.tail[2] + v.x + v.y + v.z + v.w
           + 1000.0f * (m[r[i]][c[i]] + p.tail[c[i]] + v[c[i]]);
}
"""


def nested_reference(x, r, c):
    out = np.zeros(len(x), np.float64)
    for i, xi in enumerate(x.astype(np.float64)):
        m = np.array([[xi + k for k in range(3)], [xi - k for k in range(3)]])
        tail = np.array([k * xi for k in range(3)])
        v = np.array([xi, 2 * xi, 3.0, 4.0])
        ri, ci = r[i], c[i]
        if 0 <= ri < 2 and 0 <= ci < 3:
            m[ri, ci] = 10.0
        if 0 <= ci < 3:
            tail[ci] = 20.0
        if 0 <= ci < 4:
            v[ci] = 30.0
        picked = (m[ri, ci] if 0 <= ri < 2 and 0 <= ci < 3 else 0.0) + (tail[ci] if 0 <= ci < 3 else 0.0) + \
                 (v[ci] if 0 <= ci < 4 else 0.0)
        out[i] = m.sum() + xi + tail.sum() + v.sum() + 1000.0 * picked
    return out


def test_arrays_of_arrays_struct_arrays_and_vectors(tmp_path, rng):
    n = GRID
    x = rng.uniform(-1, 1, n).astype(np.float32)
    r = rng.integers(0, 2, n).astype(np.int32)
    c = rng.integers(0, 3, n).astype(np.int32)
    bad = rng.choice(np.r_[1:n - 1], 3, replace=False)
    r[bad[0]] = 2          # past the rows of m
    c[bad[1]] = 3          # past a row of m and p.tail, in range of v
    c[bad[2]] = -1         # before everything
    rc, reports, text, out = run(tmp_path, NESTED, n, GROUP, {"x": x, "r": r, "c": c}, "out", n)
    assert rc == 4, text
    msgs = [m.group("msg") for m in reports]
    lines = {int(m.group("line")) for m in reports}
    assert lines == {line_of(NESTED, t) for t in ("m[r[i]][c[i]] =", "p.tail[c[i]] =", "v[c[i]] =", "1000.0f")}, text
    assert any("thread array 'm' index 2, but it has 2 elements" in t and thread_text(bad[0]) in t for t in msgs), text
    assert any("thread array 'p.tail'" in t for t in msgs), text
    assert any("thread vector 'v' index -1, but it has 4 elements" in t and thread_text(bad[2]) in t
               for t in msgs), text
    assert not any("thread vector 'v' index 3" in t for t in msgs), text  # 3 is in range for a float4
    np.testing.assert_allclose(out, nested_reference(x, r, c), rtol=1e-5, atol=1e-2)


def test_unchecked_run_is_unchanged_for_in_range_indices(tmp_path, rng):
    x, st, ld = window_inputs(rng)
    rc, reports, text, out = run(tmp_path, WINDOW, GRID, GROUP, {"x": x, "st": st, "ld": ld}, "out", GRID,
                                 check=False)
    assert rc == 0 and not reports, text
    np.testing.assert_allclose(out, window_reference(x, st, ld), rtol=1e-5, atol=1e-4)


# A helper that takes a thread array as a pointer; the pointer starts at element 2, so
# p[k] is a[k + 2] and the bad indices are k < -2 and k >= 4.
POINTER = """
#include <metal_stdlib>
using namespace metal;
inline void put(thread float *p, int k, float value) { p[k] = value; }
kernel void through_pointer(device const float *x [[buffer(0)]],
                            device const int *k [[buffer(1)]],
                            device float *out [[buffer(2)]],
                            uint i [[thread_position_in_grid]])
{
    float a[6];
    for (int j = 0; j < 6; j++)
        a[j] = x[i * 6 + j];
    put(a + 2, k[i], -5.0f);
    thread float *p = &a[2];
    float back = p[k[i] - 1];
    out[i] = a[0] + 2.0f * a[1] + 3.0f * a[2] + 4.0f * a[3] + 5.0f * a[4] + 6.0f * a[5] + 100.0f * back;
}
"""


def test_thread_array_through_a_pointer(tmp_path, rng):
    x = rng.uniform(-1, 1, GRID * 6).astype(np.float32)
    k = rng.integers(-1, 4, GRID).astype(np.int32)  # stores in range; loads at k - 1 >= -2: in range
    s_gid, l_gid = rng.choice(np.r_[1:GRID - 1], 2, replace=False)
    k[s_gid] = 4   # stores at a[6]; its load a[5] is in range
    k[l_gid] = -2  # stores at a[0]; its load a[-1] is out of range
    rc, reports, text, out = run(tmp_path, POINTER, GRID, GROUP, {"x": x, "k": k}, "out", GRID)
    assert rc == 4, text
    found = {int(m.group("line")): m.group("msg") for m in reports}
    store_line, load_line = line_of(POINTER, "p[k] = value"), line_of(POINTER, "p[k[i] - 1]")
    assert set(found) == {store_line, load_line}, text
    assert found[store_line].startswith("store of 4 bytes at thread array 'a' (through pointer 'p') index 6, "
                                        "but it has 6 elements"), text
    assert thread_text(s_gid) in found[store_line], text
    assert found[load_line].startswith("load of 4 bytes at thread array 'a' (through pointer 'p') index -1, "
                                       "but it has 6 elements"), text
    assert thread_text(l_gid) in found[load_line], text
    want = np.zeros(GRID)
    for i in range(GRID):
        a = x[i * 6:(i + 1) * 6].astype(np.float64)
        if 0 <= k[i] + 2 < 6:
            a[k[i] + 2] = -5.0
        back = a[k[i] + 1] if 0 <= k[i] + 1 < 6 else 0.0
        want[i] = (a * np.arange(1, 7)).sum() + 100.0 * back
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
