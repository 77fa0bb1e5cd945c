"""Fixtures of the Python package's tests: a Runtime and a fresh random generator.

Kernel results are compared with NumPy references computed independently in float64 from
fresh random inputs (never zeros). ENIGMA_LIBRARY picks the libenigma to test (scripts/check.sh
sets it to build/libenigma.so); without it the package finds the repository's build/ folder.
ENIGMA_TEST_BACKEND=cuda runs the kernels on an NVIDIA GPU instead of the cpu backend.
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from enigma_testing import open_runtime  # noqa: E402


@pytest.fixture(scope="session")
def rt():
    """A Runtime on the cpu backend (the embedded default every machine has), or on
    ENIGMA_TEST_BACKEND."""
    r = open_runtime()
    yield r
    r.close()


@pytest.fixture
def rng():
    # a fresh seed per test, printed so that a failure can be replayed
    seed = np.random.SeedSequence().entropy % (2 ** 32)
    print("random seed", seed)
    return np.random.default_rng(seed)
