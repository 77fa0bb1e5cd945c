"""Fixtures for the enigma CLI tests.

The CLI is $ENIGMA_CLI (scripts/check.sh sets it), else build/enigma or build-*/enigma
under the repository. Tests that need the compiler's front end or the cpu backend ask
for the `frontend` or `cpu` fixture, which skips them (with the reason) while that part
of enigma is not built; everything else runs against any build. ENIGMA_TEST_BACKEND=cuda
runs the run tests on the GPU instead.
"""
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
# the backend the run tests use: cpu unless ENIGMA_TEST_BACKEND names another (cuda)
BACKEND = os.environ.get("ENIGMA_TEST_BACKEND", "cpu")


def _find_cli():
    env = os.environ.get("ENIGMA_CLI")
    if env:
        return pathlib.Path(env)
    for cand in [REPO / "build" / "enigma", *sorted(REPO.glob("build*/enigma"))]:
        if cand.is_file() and os.access(cand, os.X_OK):
            return cand
    return None


class Cli:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args, cwd=None, timeout=60):
        """Runs enigma with args; returns the CompletedProcess (text)."""
        return subprocess.run([str(self.path), *map(str, args)], capture_output=True, text=True,
                              cwd=cwd, timeout=timeout)


@pytest.fixture(scope="session")
def enigma():
    path = _find_cli()
    if path is None or not path.exists():
        pytest.fail("the enigma CLI is not built: set ENIGMA_CLI or build into build/")
    return Cli(path)


_PROBE = """kernel void probe(device float* a [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    a[i] = a[i] + 1.0f;
}
"""


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


def printed(stdout, name):
    """The values `--print NAME` printed, as a list of floats (vectors flattened)."""
    for line in stdout.splitlines():
        if line.startswith(name + " = ["):
            body = line[len(name) + 4:line.rindex("]")]
            body = body.split(", ...")[0].replace("(", "").replace(")", "")
            return [float(x) if x not in ("true", "false") else float(x == "true")
                    for x in body.split(", ") if x]
    raise AssertionError(f"no '{name} = [...]' line in:\n{stdout}")
