"""Fixtures for the enigma CLI tests (tests/cli is a package, so that this conftest and
its helpers do not collide with other suites' `conftest` modules in one pytest run).

Tests that need the compiler's front end or the run backend ask for the `frontend` or
`cpu` fixture, which skips them (with the reason) while that part of enigma is not built.
"""
import pytest

from .helpers import BACKEND, Cli, _find_cli

_PROBE = """kernel void probe(device float* a [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    a[i] = a[i] + 1.0f;
}
"""


@pytest.fixture(scope="session")
def enigma():
    path = _find_cli()
    if path is None or not path.exists():
        pytest.fail("the enigma CLI is not built: set ENIGMA_CLI or build into build/")
    return Cli(path)


@pytest.fixture(scope="session")
def frontend(enigma, tmp_path_factory):
    """Skips unless the front end compiles a trivial kernel."""
    src = tmp_path_factory.mktemp("probe") / "probe.metal"
    src.write_text(_PROBE)
    r = enigma("compile", src, "--emit", "ir")
    if r.returncode != 0 and "not built yet" in r.stderr:
        pytest.skip("the front end is not built yet: " + r.stderr.strip().splitlines()[0])
    return True


@pytest.fixture(scope="session")
def cpu(enigma, frontend, tmp_path_factory):
    """Skips unless the backend of the run tests (BACKEND, normally cpu) is built; a cpu
    that is built but does not open fails the tests instead."""
    info = enigma("info")
    for line in info.stdout.splitlines():
        if line.startswith(BACKEND + ":") and "unavailable" in line:
            if "not built" in line or BACKEND != "cpu":
                pytest.skip(f"the {BACKEND} backend is not available here: {line}")
    return True
