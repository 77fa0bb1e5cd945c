"""Shared fixtures: the package from this checkout, a cpu Runtime, and `run_kernel`.

Kernel results are compared with NumPy references computed independently in float64 from
fresh random inputs (never zeros). ENIGMA_LIBRARY picks the libenigma to test (scripts/check.sh
sets it to build/libenigma.so); without it the package finds the repository's build/ folder.
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import enigma  # noqa: E402


BACKEND = os.environ.get("ENIGMA_TEST_BACKEND", "cpu")


def open_runtime(backend=BACKEND):
    """A Runtime; skips the test only while the backend is not built into libenigma at
    all (a build state, reported as such), never for any other failure."""
    try:
        return enigma.Runtime(backend)
    except enigma.UnavailableError as e:
        if "not built into this enigma" in str(e):
            pytest.skip(str(e))
        raise


@pytest.fixture(scope="session")
def rt():
    """A Runtime on the cpu backend (the embedded default every machine has), or on
    ENIGMA_TEST_BACKEND ("cuda" on a GPU machine)."""
    r = open_runtime()
    yield r
    r.close()


@pytest.fixture
def rng(request):
    # a fresh seed per test, printed on failure through the test id
    seed = np.random.SeedSequence().entropy % (2 ** 32)
    print("random seed", seed)
    return np.random.default_rng(seed)


def run_kernel(rt, kernel, inputs, out_dtype, out_count, grid, threads, **kw):
    """Compiles a @enigma.kernel, runs it and returns the output as a NumPy array."""
    compiled = kernel if isinstance(kernel, enigma.Compiled) else enigma.compile(kernel)
    raw = rt.execute(compiled, inputs=inputs, output_size=out_count * np.dtype(out_dtype).itemsize,
                     grid=grid, threads=threads, **kw)
    return np.frombuffer(raw, dtype=out_dtype).copy()
