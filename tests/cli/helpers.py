"""What the enigma CLI tests share: where the CLI and the examples are, the backend the
run tests use, and reading what --print printed.

The CLI is $ENIGMA_CLI (scripts/check.sh sets it), else build/enigma or build-*/enigma
under the repository. ENIGMA_TEST_BACKEND=cuda runs the run tests on the GPU instead of
the cpu backend.
"""
import os
import pathlib
import subprocess

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


def printed(stdout, name):
    """The values `--print NAME` printed, as a list of floats (vectors flattened)."""
    for line in stdout.splitlines():
        if line.startswith(name + " = ["):
            body = line[len(name) + 4:line.rindex("]")]
            body = body.split(", ...")[0].replace("(", "").replace(")", "")
            return [float(x) if x not in ("true", "false") else float(x == "true")
                    for x in body.split(", ") if x]
    raise AssertionError(f"no '{name} = [...]' line in:\n{stdout}")
