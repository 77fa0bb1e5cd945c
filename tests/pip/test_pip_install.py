"""What a new Python user does, on a clean virtual environment: build a wheel from this
checkout (`pip wheel ./python`, which compiles libenigma through scikit-build-core), install
it, and run seed 000's and seed 002's scripts unchanged, from a folder outside the checkout
and with no ENIGMA_LIBRARY or PYTHONPATH, so the package must find the library it carries.

Needs: python3 with venv, a C compiler, cmake and ninja (the README's set-up installs them),
and PyPI for scikit-build-core and NumPy."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = os.path.join(ROOT, "python", "tests", "seeds")


def _run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    return p.returncode, p.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    top = tmp_path_factory.mktemp("pip")
    env_dir = top / "venv"
    rc, out = _run([sys.executable, "-m", "venv", str(env_dir)])
    assert rc == 0, out
    py = str(env_dir / "bin" / "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("ENIGMA_LIBRARY", "PYTHONPATH", "VIRTUAL_ENV")}
    wheels = top / "wheels"
    rc, out = _run([py, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                    os.path.join(ROOT, "python")], env=env)
    assert rc == 0, "pip wheel ./python failed:\n" + out
    built = [w for w in os.listdir(wheels) if w.endswith(".whl")]
    assert len(built) == 1, built
    rc, out = _run([py, "-m", "pip", "install", "-q", str(wheels / built[0])], env=env)
    assert rc == 0, "pip install of the wheel failed:\n" + out
    work = top / "elsewhere"
    work.mkdir()
    return py, env, str(work), built[0]


def test_the_wheel_carries_libenigma_and_serves_any_python3(venv):
    py, env, work, wheel = venv
    assert wheel.endswith("-py3-none-linux_x86_64.whl") or "-py3-none-" in wheel, wheel
    rc, out = _run([py, "-c", "import enigma, os; print(enigma.library_path()); "
                    "print(os.path.dirname(enigma.__file__))"], env=env, cwd=work)
    assert rc == 0, out
    lib, pkg = out.split()
    assert lib == os.path.join(pkg, "libenigma.so"), out
    assert "site-packages" in pkg and not pkg.startswith(ROOT), out


def test_seed002_script_runs_unchanged(venv):
    py, env, work, _ = venv
    script = shutil.copy(os.path.join(SEEDS, "seed002_naive_gemm.py"), work)
    rc, out = _run([py, script], env=env, cwd=work)
    assert rc == 0, out
    assert out.strip().endswith("pass"), out


def test_seed000_script_runs_unchanged_to_its_documented_limit_error(venv):
    """Seed 000's second pass asks for 4096 threads per threadgroup: the script stops with
    enigma's LimitError naming both numbers and the kernel, after its first pass ran."""
    py, env, work, _ = venv
    script = shutil.copy(os.path.join(SEEDS, "seed000_reduction.py"), work)
    rc, out = _run([py, script], env=env, cwd=work)
    assert rc == 1, out
    assert "enigma.errors.LimitError: threads per threadgroup 4096" in out, out
    assert "exceeds the limit of 1024 for kernel 'reduce_final'" in out, out


def test_the_cli_is_installed(venv):
    py, env, work, _ = venv
    cli = os.path.join(os.path.dirname(py), "enigma")
    rc, out = _run([cli, "--help"], env=env, cwd=work)
    assert rc == 0 and "usage" in out.lower(), out
