"""Runs a kernel of the checked-mode corpus through `enigma run --check` and reads its reports.

A corpus kernel says in its header comments how to run it and what it must report:

    CODE  // expect: KIND      at the end of the line where the problem must be reported (KIND
                               as the report spells it: out-of-bounds, data-race,
                               barrier-divergence, uninitialized-read, inactive-lane,
                               division-by-zero); several kinds: one `// expect:` each, or
    // expect: KIND LINE       a header line naming the line by number
    // run: ARGS...            the arguments of `enigma run` after the file; a binding
                               NAME=rand:DTYPE:COUNT[:LO:HI] becomes a .npy file of fresh
                               random values (integers in [LO, HI), default [-1000, 1000),
                               never all zero; floats uniform in [-1, 1))

The reports must be exactly the expected ones as a set of (KIND, LINE): nothing missing and
nothing else. A kernel without `expect:` lines (tests/check/clean) must run with exit 0 and
no report at all.

The CLI is $ENIGMA_CLI, else build/enigma, else the newest build*/enigma of the repository.
"""
import os
import pathlib
import re
import subprocess

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
KINDS = {"out-of-bounds", "data-race", "barrier-divergence", "uninitialized-read", "inactive-lane",
         "division-by-zero"}
REPORT = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<kind>[a-z-]+): (?P<msg>.*)$")


def cli_path():
    env = os.environ.get("ENIGMA_CLI")
    if env:
        return pathlib.Path(env)
    cands = [REPO / "build" / "enigma"] + sorted(REPO.glob("build*/enigma"), key=lambda p: p.stat().st_mtime,
                                                  reverse=True)
    for cand in cands:
        if cand.is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def parse_header(path):
    """(run arguments, set of expected (kind, line)) from a corpus kernel's comments."""
    args, expected = [], set()
    for number, text in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        m = re.match(r"^\s*//\s*expect:\s*([a-z-]+)\s+(\d+)\s*$", text)
        if m:
            assert m.group(1) in KINDS, f"{path}: unknown kind {m.group(1)}"
            expected.add((m.group(1), int(m.group(2))))
        elif re.search(r"\S.*//\s*expect:", text):
            for kind in re.findall(r"//\s*expect:\s*([a-z-]+)", text):
                assert kind in KINDS, f"{path}:{number}: unknown kind {kind}"
                expected.add((kind, number))
        m = re.match(r"^//\s*run:\s*(.*)$", text)
        if m:
            args += m.group(1).split()
    return args, expected


def _random_array(spec, rng):
    parts = spec.split(":")
    dtype, count = np.dtype(parts[1]), int(parts[2])
    if dtype.kind == "f":
        lo, hi = (float(parts[3]), float(parts[4])) if len(parts) > 4 else (-1.0, 1.0)
        a = rng.uniform(lo, hi, count).astype(dtype)
    else:
        lo, hi = (int(parts[3]), int(parts[4])) if len(parts) > 4 else (-1000, 1000)
        if dtype.kind == "u":
            lo = max(lo, 0)
        a = rng.integers(lo, hi, count).astype(dtype)
    if count and not a.any():
        a[0] = 1
    return a


def materialize(args, tmp, rng):
    """args with NAME=rand:... bindings replaced by .npy files under tmp."""
    out = []
    for i, a in enumerate(args):
        m = re.match(r"^([A-Za-z_0-9]+)=(rand:.*)$", a)
        if m:
            path = pathlib.Path(tmp) / f"arg{i}_{m.group(1)}.npy"
            np.save(path, _random_array(m.group(2), rng))
            out.append(f"{m.group(1)}=@{path}")
        else:
            out.append(a)
    return out


def run_checked(path, tmp, rng, extra=(), env=None):
    """Runs the kernel checked on the cpu; returns (exit code, reports, stdout+stderr).
    reports: a list of (kind, line, message) for each report line. env: variables to set
    for the run (ENIGMA_NUM_THREADS: the workers)."""
    cli = cli_path()
    assert cli is not None, "the enigma CLI is not built: set ENIGMA_CLI or build into build/"
    args, _ = parse_header(path)
    cmd = [str(cli), "run", str(path), "--backend", "cpu", "--check", *materialize(args, tmp, rng), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})
    text = r.stdout + r.stderr
    reports = []
    for line in text.splitlines():
        m = REPORT.match(line)
        if m and m.group("kind") in KINDS:
            reports.append((m.group("kind"), int(m.group("line")), m.group("msg")))
    return r.returncode, reports, text
