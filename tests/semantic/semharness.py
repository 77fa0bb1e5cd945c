"""Runs one MSL kernel through `enigma run` and reads its buffers back.

The semantic suite checks what kernels compute, never how: every test writes fresh random
inputs (never zeros) to .npy files, runs the kernel through the CLI, and compares the
buffers it wrote with a reference computed independently in the test (NumPy in float64,
or exact Python integers).

The CLI is $ENIGMA_CLI, else build/enigma, else the newest build*/enigma of the repository.
$ENIGMA_BACKEND picks the backend (default cpu). $ENIGMA_SEED fixes the random seed; the
seed of every test is printed, so a failure can be replayed. $ENIGMA_COMPILE_ONLY=1 only
compiles each kernel (a front-end check that needs no backend).
"""
import os
import pathlib
import secrets
import subprocess

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]


def cli_path():
    env = os.environ.get("ENIGMA_CLI")
    if env:
        return pathlib.Path(env)
    cands = [REPO / "build" / "enigma"] + sorted(REPO.glob("build*/enigma"),
                                                  key=lambda p: p.stat().st_mtime, reverse=True)
    for cand in cands:
        if cand.is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def backend():
    return os.environ.get("ENIGMA_BACKEND", "cpu")


def new_rng():
    seed = int(os.environ.get("ENIGMA_SEED", secrets.randbits(32)))
    print(f"ENIGMA_SEED={seed}")
    return np.random.default_rng(seed)


class KernelError(AssertionError):
    pass


def _size(v):
    if isinstance(v, int):
        return str(v)
    return ",".join(str(x) for x in v)


def run(tmp, src, inputs, outputs, *, threads, grid=None, threadgroups=None, kernel=None,
        tgmem=None, expect_rc=0, extra=()):
    """Runs `src` and returns {name: array} for each name of `outputs`.

    inputs: {name: ndarray | str}; arrays go through .npy files (their dtype must be the
    parameter's), strings are passed as the CLI's literal VALUE (e.g. "5" or "1,2,3").
    outputs: names of buffer parameters to read back (.npy, with the input's dtype and shape).
    expect_rc: the exit code wanted; with any other the run fails. None returns the
    CompletedProcess whatever the outcome.
    """
    tmp = pathlib.Path(tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "kernel.metal"
    path.write_text(src)
    cli = cli_path()
    if cli is None:
        raise KernelError("the enigma CLI is not built: set ENIGMA_CLI or build into build/")
    if os.environ.get("ENIGMA_COMPILE_ONLY"):
        # a front-end check of the suite's kernels without running them
        import pytest
        r = subprocess.run([str(cli), "compile", str(path), "--emit", "ir"] + (["-k", kernel] if kernel else []),
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0 or r.stderr.strip():
            raise KernelError(f"enigma compile exited {r.returncode}\n{r.stderr}")
        pytest.skip("ENIGMA_COMPILE_ONLY: compiled")
    args = [str(cli), "run", str(path), "--backend", backend(), "--threads", _size(threads)]
    if kernel:
        args += ["-k", kernel]
    if grid is not None:
        args += ["--grid", _size(grid)]
    else:
        args += ["--threadgroups", _size(threadgroups)]
    for index, nbytes in (tgmem or {}).items():
        args += ["--tgmem", f"{index}={nbytes}"]
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            f = tmp / f"in_{name}.npy"
            np.save(f, np.ascontiguousarray(value))
            args.append(f"{name}=@{f}")
        else:
            args.append(f"{name}={value}")
    outs = {}
    for name in outputs:
        f = tmp / f"out_{name}.npy"
        outs[name] = f
        args += ["-o", f"{name}={f}"]
    args += list(extra)
    r = subprocess.run(args, capture_output=True, text=True,
                       timeout=float(os.environ.get("ENIGMA_RUN_TIMEOUT", 60)))
    if expect_rc is None:     # the caller checks the outcome
        return r
    if r.returncode != expect_rc:
        raise KernelError(f"enigma run exited {r.returncode} (expected {expect_rc})\n"
                          f"command: {' '.join(args)}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    if expect_rc != 0:
        return r
    return {name: np.load(f) for name, f in outs.items()}


def close(got, want, rtol=1e-5, atol=1e-6, what="result"):
    """Asserts got ~ want elementwise; both may be any shape (broadcast like numpy)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    same_nan = np.isnan(got) & np.isnan(want)
    same_inf = np.isinf(want) & (got == want)
    ok = np.isclose(got, want, rtol=rtol, atol=atol) | same_nan | same_inf
    if not ok.all():
        bad = np.argwhere(~ok)
        lines = [f"{what}: {len(bad)} of {ok.size} elements differ (rtol {rtol}, atol {atol})"]
        for idx in bad[:12]:
            t = tuple(idx)
            lines.append(f"  at {t}: got {got[t]!r}, expected {want[t]!r}")
        raise AssertionError("\n".join(lines))


def exact(got, want, what="result"):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    ok = got == want
    if not ok.all():
        bad = np.argwhere(~ok)
        lines = [f"{what}: {len(bad)} of {ok.size} elements differ"]
        for idx in bad[:12]:
            t = tuple(idx)
            lines.append(f"  at {t}: got {got[t]!r}, expected {want[t]!r}")
        raise AssertionError("\n".join(lines))


# ---- random inputs that are never zero ----------------------------------------------------
def floats(rng, n, lo=-4.0, hi=4.0, dtype=np.float32, away=1e-3):
    """Uniform floats in [lo, hi), kept at least `away` from 0."""
    x = rng.uniform(lo, hi, n)
    small = np.abs(x) < away
    x[small] = np.where(x[small] < 0, -away, away) + x[small]
    if lo >= 0:
        x = np.abs(x)
    return x.astype(dtype)


def ints(rng, n, lo, hi, dtype=np.int32, nonzero=True):
    """Uniform integers in [lo, hi); zero replaced by `lo` or 1 when nonzero."""
    x = rng.integers(lo, hi, n, dtype=np.int64)
    if nonzero:
        x[x == 0] = 1 if hi > 1 else lo
    return x.astype(dtype)


def garbage(rng, n, dtype=np.float32):
    """Random contents for output buffers, so a missing write shows up."""
    if np.issubdtype(dtype, np.floating):
        big = min(1e6, float(np.finfo(dtype).max) / 4)
        return (rng.uniform(-big, big, n) + big / 7).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -(2 ** 31)), min(info.max, 2 ** 31 - 1), n).astype(dtype) | 1


def device_info():
    """The chosen backend's lines of `enigma info`, as {"max threadgroup memory": 32768, ...}."""
    import re
    r = subprocess.run([str(cli_path()), "info"], capture_output=True, text=True, timeout=60)
    info, mine = {}, False
    for line in r.stdout.splitlines():
        if not line.startswith(" "):
            mine = line.startswith(backend() + ":")
            continue
        m = re.match(r"\s+(.*?)\s+(\d+)(\s+\w+)?$", line)
        if mine and m:
            info[m.group(1)] = int(m.group(2))
    return info
