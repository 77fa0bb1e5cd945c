"""Fixtures of the real-world kernel tests: where the unmodified sources are, a Runtime, a fresh
random generator, and the enigma CLI.

The sources are test inputs kept outside the project (../shared/realworld beside the checkout,
see its README.md); $ENIGMA_REALWORLD names another copy. Tests skip, saying so, where no copy
is found. ENIGMA_TEST_BACKEND=cuda runs the kernels on an NVIDIA GPU instead of the cpu backend.
"""
import os
import pathlib
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
if str(REPO / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "python"))

import enigma  # noqa: E402

BACKEND = os.environ.get("ENIGMA_TEST_BACKEND", "cpu")


def realworld_dir():
    """$ENIGMA_REALWORLD, else ../shared/realworld beside the checkout, else the workplace's
    /work/shared/realworld (a worktree elsewhere than /work/main)."""
    env = os.environ.get("ENIGMA_REALWORLD")
    if env:
        return pathlib.Path(env)
    for cand in (REPO.parent / "shared" / "realworld", pathlib.Path("/work/shared/realworld")):
        if cand.is_dir():
            return cand
    return REPO.parent / "shared" / "realworld"


def find_cli():
    """$ENIGMA_CLI (scripts/check.sh sets it), else build/enigma or build-*/enigma."""
    env = os.environ.get("ENIGMA_CLI")
    if env:
        return pathlib.Path(env)
    for cand in [REPO / "build" / "enigma", *sorted(REPO.glob("build*/enigma"))]:
        if cand.is_file() and os.access(cand, os.X_OK):
            return cand
    return None


@pytest.fixture(scope="session")
def rt():
    """A Runtime on the cpu backend, or on ENIGMA_TEST_BACKEND; skips only while that backend
    is not built into libenigma at all."""
    try:
        r = enigma.Runtime(BACKEND)
    except enigma.UnavailableError as e:
        if "not built into this enigma" in str(e):
            pytest.skip(str(e))
        raise
    yield r
    r.close()


@pytest.fixture
def rng():
    # a fresh seed per test, printed so that a failure can be replayed
    seed = np.random.SeedSequence().entropy % (2 ** 32)
    print("random seed", seed)
    return np.random.default_rng(seed)
