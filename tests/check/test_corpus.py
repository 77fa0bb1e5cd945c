"""The checked-mode corpus: every kernel of tests/check/bugs must report exactly the
problems its header names (kind and line) and exit 4; every kernel of tests/check/clean
(correct code, warp-synchronous idioms among them) must report nothing and exit 0. Kernels
whose threadgroups are checked on several workers at once must report the same text
whatever the number of workers."""
import os
import pathlib
import secrets
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import checkharness  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
BUGS = sorted((HERE / "bugs").glob("*.metal"))
CLEAN = sorted((HERE / "clean").glob("*.metal"))


@pytest.fixture
def rng():
    seed = int(os.environ.get("ENIGMA_SEED", secrets.randbits(32)))
    print(f"ENIGMA_SEED={seed}")
    return np.random.default_rng(seed)


def test_corpus_size():
    assert len(BUGS) >= 25, f"only {len(BUGS)} buggy kernels"
    for path in BUGS:
        _, expected = checkharness.parse_header(path)
        assert expected, f"{path.name} has no `// expect:` line"


@pytest.mark.parametrize("path", BUGS, ids=[p.stem for p in BUGS])
def test_buggy_kernel_reports_exactly_its_problems(path, tmp_path, rng):
    _, expected = checkharness.parse_header(path)
    rc, reports, text = checkharness.run_checked(path, tmp_path, rng)
    found = {(kind, line) for kind, line, _ in reports}
    assert found == expected, f"expected {sorted(expected)}, found {sorted(found)}\n{text}"
    assert rc == 4, f"exit {rc}\n{text}"
    # one line per distinct problem, then the summary
    assert "checked mode:" in text, text
    for kind, line, msg in reports:
        assert "threadgroup (" in msg and "thread (" in msg, f"the report names no thread: {msg}"


@pytest.mark.parametrize("path", CLEAN, ids=[p.stem for p in CLEAN])
def test_correct_kernel_reports_nothing(path, tmp_path, rng):
    rc, reports, text = checkharness.run_checked(path, tmp_path, rng)
    assert not reports, text
    assert rc == 0, f"exit {rc}\n{text}"


def _checked_apart(path):
    """Does the checked build of this kernel let several workers check its threadgroups?"""
    r = subprocess.run([str(checkharness.cli_path()), "compile", str(path), "--emit", "c", "--check"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return "_check_apart = 1;" in r.stdout


def test_reports_do_not_depend_on_the_workers(tmp_path, rng):
    """The reports (which event's message each keeps, their order and their counts) of a
    kernel checked on several workers are those of one worker running the groups in turn."""
    apart = [p for p in BUGS if _checked_apart(p)]
    assert {"oob_atomic", "oob_seed003_original", "apart_reports_from_many_groups"} <= {p.stem for p in apart}
    for path in apart:
        seed = int(rng.integers(1 << 31))
        texts = []
        for workers in ("1", "3", "3", "3"):  # which groups run first varies from run to run
            rc, reports, text = checkharness.run_checked(path, tmp_path, np.random.default_rng(seed),
                                                         env={"ENIGMA_NUM_THREADS": workers})
            assert rc == 4 and reports, text
            texts.append(text)
        for text in texts[1:]:
            assert text == texts[0], f"{path.name}:\none worker:\n{texts[0]}\nthree:\n{text}"
