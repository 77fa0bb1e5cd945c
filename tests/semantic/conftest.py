"""Fixtures of the semantic kernel suite (see semharness.py for how a kernel runs)."""
import os
import sys
import pathlib

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import semharness  # noqa: E402


@pytest.fixture
def rng():
    """A fresh random generator; its seed is printed (replay with ENIGMA_SEED)."""
    return semharness.new_rng()


@pytest.fixture
def run(tmp_path):
    """run(src, inputs, outputs, threads=..., grid=... | threadgroups=..., ...) -> {name: array}"""
    def go(src, inputs, outputs, **kw):
        return semharness.run(tmp_path, src, inputs, outputs, **kw)
    return go


@pytest.fixture(scope="session", autouse=True)
def backend_built():
    """Skips the suite while the chosen backend is not built into the CLI (enigma info)."""
    import subprocess
    cli = semharness.cli_path()
    if cli is None:
        pytest.fail("the enigma CLI is not built: set ENIGMA_CLI or build into build/")
    info = subprocess.run([str(cli), "info"], capture_output=True, text=True).stdout
    if os.environ.get("ENIGMA_COMPILE_ONLY"):
        return
    name = semharness.backend()
    for line in info.splitlines():
        if line.startswith(name + ":") and "not built" in line:
            pytest.skip(f"the {name} backend is not built into {cli} yet")
