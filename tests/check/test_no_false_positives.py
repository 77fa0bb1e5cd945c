"""Zero false positives: every correct kernel of the repository runs in checked mode with
the valid inputs its own tests give it, and checked mode reports nothing.

The repository's kernel suites (tests/cli: the examples, seeds and CLI runs; tests/semantic:
the semantic kernel suite) run unchanged with ENIGMA_CLI pointing at checked_cli.py, which
adds --check to every `enigma run` and logs any report. Kernels that are buggy on purpose
(the CLI's own checked-mode test) are listed below and left out. The bench kernels that no
suite runs are run here with the dispatches bench/cpu_bench.c uses.
"""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import checkharness  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
REPO = checkharness.REPO
SUITES = ["tests/cli/test_examples.py", "tests/cli/test_run.py", "tests/semantic"]
# runs of kernels that are wrong on purpose: their reports are the point of the test
DELIBERATE = re.compile(r"/test_checked[^/ ]*/")


def test_repository_suites_report_nothing_when_checked(tmp_path):
    cli = checkharness.cli_path()
    assert cli is not None, "the enigma CLI is not built: set ENIGMA_CLI or build into build/"
    log = tmp_path / "reports.log"
    env = dict(os.environ, ENIGMA_CHECK_REAL_CLI=str(cli.resolve()), ENIGMA_CHECK_FP_LOG=str(log),
               ENIGMA_CLI=str(HERE / "checked_cli.py"))
    suites = [s for s in SUITES if (REPO / s).exists()]
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *suites], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=3000)
    summary = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) >= 50, f"the suites did not run:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    entries = log.read_text().split("\n$ ") if log.exists() else []
    false_positives = [e for e in entries if e.strip() and not DELIBERATE.search(e.splitlines()[0])]
    assert not false_positives, "checked mode reported problems in correct kernels:\n" + "\n".join(false_positives)


def _run(args, tmp_path):
    cli = checkharness.cli_path()
    r = subprocess.run([str(cli), "run", *map(str, args), "--backend", "cpu", "--check"], capture_output=True,
                       text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def test_bench_kernels_report_nothing(tmp_path):
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, 1 << 16).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    k = REPO / "bench" / "kernels"
    runs = [
        [k / "reduce_simd.metal", "--threadgroups", 16, "--threads", 256, f"in=@{tmp_path / 'x.npy'}",
         "partials=zeros:16", f"n={len(x)}"],
        [k / "empty.metal", "--threadgroups", 1, "--threads", 32, "out=zeros:1"],
        [k / "seed003_reduce.metal", "--threadgroups", 8, "--threads", 256, "--tgmem", "0=1024",
         f"input=@{tmp_path / 'i.npy'}", "output=zeros:1"],
        [k / "gemm.metal", "-k", "tiled_gemm", "--threadgroups", "2,2", "--threads", "16,16",
         f"A=@{tmp_path / 'a.npy'}", f"B=@{tmp_path / 'a.npy'}", "C=zeros:1024", "K=32", "N=32"],
        [k / "gemm.metal", "-k", "naive_gemm", "--grid", "32,32", "--threads", "8,8",
         f"A=@{tmp_path / 'a.npy'}", f"B=@{tmp_path / 'a.npy'}", "C=zeros:1024", "K=32", "N=32"],
    ]
    np.save(tmp_path / "i.npy", rng.integers(-1000, 1000, 2048).astype(np.int32))
    np.save(tmp_path / "a.npy", rng.uniform(-1, 1, 1024).astype(np.float32))
    for args in runs:
        rc, text = _run(args, tmp_path)
        assert rc == 0 and "error:" not in text, f"{args}\nexit {rc}\n{text}"
