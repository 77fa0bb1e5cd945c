"""Helpers shared by the Python package's tests (a uniquely named module, so that running
these tests together with other suites' conftest.py files never imports the wrong one)."""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.dirname(HERE) not in sys.path:
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


def run_kernel(rt, kernel, inputs, out_dtype, out_count, grid, threads, **kw):
    """Compiles a @enigma.kernel, runs it and returns the output as a NumPy array."""
    compiled = kernel if isinstance(kernel, enigma.Compiled) else enigma.compile(kernel)
    raw = rt.execute(compiled, inputs=inputs, output_size=out_count * np.dtype(out_dtype).itemsize,
                     grid=grid, threads=threads, **kw)
    return np.frombuffer(raw, dtype=out_dtype).copy()
