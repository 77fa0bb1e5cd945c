"""The real-world kernel libraries (issue 10), compiled from ../shared/realworld as their
projects ship them: every kernel of llama.cpp's ggml-metal.metal through the front end and
NVRTC, a sample (and ENIGMA_REALWORLD_ALL=1: all) through the cpu backend's C compiler; each
of MLX's kernel files through the front end, and of the files that compile (mlx_files.txt) a
few kernels each through the cpu backend and NVRTC (ENIGMA_REALWORLD_ALL=1: every kernel, about
16,000: an hour and more of compiler time, see bench/RESULTS.md). Prints the counts; asserts
what works today keeps working and that what is refused is refused for its stated reason.

The sources are test inputs only (../shared/realworld/README.md); nothing of them is copied here.
"""

import os
import pathlib
import re
import concurrent.futures
import subprocess
import time

import pytest

from .conftest import realworld_dir

REPO = pathlib.Path(__file__).resolve().parents[2]
REALWORLD = realworld_dir()
GGML = REALWORLD / "ggml"
GGML_FILE = GGML / "src" / "ggml-metal" / "ggml-metal.metal"
MLX = REALWORLD / "mlx"
MLX_KERNELS = MLX / "mlx" / "backend" / "metal" / "kernels"
ALL = os.environ.get("ENIGMA_REALWORLD_ALL") == "1"

pytestmark = pytest.mark.skipif(not GGML_FILE.is_file() or not MLX_KERNELS.is_dir(),
                                reason="../shared/realworld is not here")


def _cli():
    env = os.environ.get("ENIGMA_CLI")
    if env:
        return env
    for cand in [REPO / "build" / "enigma", *sorted(REPO.glob("build*/enigma"))]:
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    pytest.skip("no enigma CLI built")


def _run(*args, timeout=1800):
    return subprocess.run([_cli(), *map(str, args)], capture_output=True, text=True, timeout=timeout)


def _ggml_args():
    constants = [line.strip() for line in (REPO / "tests" / "realworld" / "ggml_constants.txt").read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
    args = [GGML_FILE, "-I", GGML / "src", "-I", GGML / "src" / "ggml-metal", "-DGGML_METAL_HAS_BF16"]
    for c in constants:
        args += ["--constant", c]
    return args


def _say(capsys, text):
    """prints past pytest's capture: the counts are this test's report"""
    with capsys.disabled():
        print(text)


def _errors(stderr):
    return [line for line in stderr.splitlines() if ": error:" in line or line.startswith("enigma: kernel ")]


@pytest.fixture(scope="module")
def ggml_run():
    t0 = time.time()
    r = _run("compile", *_ggml_args(), "--emit", "ir")
    return r, time.time() - t0


@pytest.fixture(scope="module")
def ggml_kernels(ggml_run):
    r, _ = ggml_run
    assert r.returncode == 0, "\n".join(_errors(r.stderr)[:20])
    return re.findall(r"^kernel void (\w+)\(", r.stdout, re.M)


def test_ggml_every_kernel_checks(ggml_kernels, ggml_run, capsys):
    _say(capsys, "\nggml-metal.metal: %d kernels through the front end in %.1f s" % (len(ggml_kernels), ggml_run[1]))
    # 655 [[host_name]] instantiations and the plain kernels beside them
    assert len(ggml_kernels) >= 650
    for required in ("kernel_rms_norm_f32", "kernel_soft_max_f32", "kernel_rope_norm_f32", "kernel_mul_mv_f16_f32",
                     "kernel_mul_mv_q4_0_f32", "kernel_mul_mm_f16_f32", "kernel_get_rows_q8_0",
                     "kernel_flash_attn_ext_f16_dk64_dv64"):
        assert required in ggml_kernels


def _nvrtc_here():
    r = _run("compile", REPO / "examples" / "vector_add.metal", "--backend", "cuda")
    return r.returncode == 0 and "NVRTC" in r.stdout


def test_ggml_every_kernel_passes_nvrtc(ggml_kernels, capsys):
    if not _nvrtc_here():
        pytest.skip("NVRTC is not installed here")
    r = _run("compile", *_ggml_args(), "--backend", "cuda")
    _say(capsys, "\n" + r.stdout.strip())
    assert r.returncode == 0, "\n".join(_errors(r.stderr)[:20])
    m = re.search(r"cuda: (\d+) of (\d+) kernels built by NVRTC", r.stdout)
    assert m and m.group(1) == m.group(2) == str(len(ggml_kernels))


def test_ggml_kernels_build_on_the_cpu_backend(ggml_kernels, capsys):
    # every 40th kernel and the ones the run tests use; all of them with ENIGMA_REALWORLD_ALL=1
    sample = ggml_kernels if ALL else sorted(set(ggml_kernels[::40]) | {
        "kernel_rms_norm_f32", "kernel_soft_max_f32", "kernel_mul_mv_q4_0_f32", "kernel_get_rows_q8_0"})
    args = []
    for name in sample:
        args += ["-k", name]
    r = _run("compile", *_ggml_args(), "--backend", "cpu", *args)
    _say(capsys, "\n" + r.stdout.strip())
    assert r.returncode == 0, "\n".join(_errors(r.stderr)[:20])
    assert "cpu: %d of %d kernels built" % (len(sample), len(sample)) in r.stdout


# MLX: what each file needs that the host gives (function constants), and the files refused
# for a stated reason
def _mlx_files():
    """tests/realworld/mlx_files.txt: FILE NAME=VALUE... per line"""
    files = {}
    for line in (REPO / "tests" / "realworld" / "mlx_files.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, *constants = line.split()
            files[name] = constants
    return files


MLX_FILES = _mlx_files()
MLX_CONSTANTS = MLX_FILES
MLX_REFUSED = {  # file: the reason in its first error
    name: "MetalPerformancePrimitives" for name in (
        "fp_quantized_nax.metal", "quantized_nax.metal", "steel_attention_nax.metal", "steel_gemm_fused_nax.metal",
        "steel_gemm_gather_nax.metal", "steel_gemm_segmented_nax.metal", "steel_gemm_splitk_nax.metal")
}
# files that compile whole today: they must keep compiling
MLX_COMPILING = set(MLX_FILES)


def _mlx_constant_args(name):
    args = []
    for c in MLX_CONSTANTS.get(name, []):
        args += ["--constant", c]
    return args


@pytest.fixture(scope="module")
def mlx_ir():
    """every MLX kernel file through the front end, several at once: {path: CompletedProcess}"""
    files = sorted(MLX_KERNELS.rglob("*.metal"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = pool.map(lambda f: _run("compile", f, "-I", MLX, "--emit", "ir", *_mlx_constant_args(f.name),
                                       timeout=300), files)
        return dict(zip(files, runs))


def test_mlx_kernel_files(mlx_ir, capsys):
    files = sorted(mlx_ir)
    assert len(files) == 42
    compiled, refused, failing, kernels = [], [], {}, 0
    for f in files:
        r = mlx_ir[f]
        errors = _errors(r.stderr)
        if r.returncode == 0:
            compiled.append(f.name)
            kernels += len(re.findall(r"^kernel void ", r.stdout, re.M))
        elif f.name in MLX_REFUSED:
            assert MLX_REFUSED[f.name] in errors[0], errors[0]
            refused.append(f.name)
        else:
            failing[f.name] = (len(errors), errors[0] if errors else r.stderr.strip()[-300:])
    report = ["\nmlx: %d of %d kernel files compile (%d kernels): %s" % (len(compiled), len(files), kernels,
                                                                       ", ".join(compiled)),
              "mlx: %d refused (Apple-only MetalPerformancePrimitives): %s" % (len(refused), ", ".join(refused)),
              "mlx: %d fail:" % len(failing)]
    for name, (n, first) in sorted(failing.items()):
        report.append("  %s (%d errors): %s" % (name, n, first.split("/kernels/")[-1]))
    _say(capsys, "\n".join(report))
    assert MLX_COMPILING <= set(compiled), sorted(MLX_COMPILING - set(compiled))
    assert len(refused) == len(MLX_REFUSED)


def _mlx_kernels(ir):
    """the kernels of a file's --emit ir output, in order, each with the length of its IR"""
    parts = re.split(r"(?m)^(?=kernel void )", ir)
    return [(re.match(r"kernel void (\w+)\(", p).group(1), len(p)) for p in parts if p.startswith("kernel void ")]


# IR text a kernel may have to be in the normal runs' sample beside the file's smallest: gcc
# -O2 builds about 3 to 8 KB of IR (30 to 80 KB of C) a CPU second, MLX's steel kernels have
# 30 to 350 KB each (one of steel_attention.metal: 16 s), and the whole sample must stay
# within about two minutes on two cores
MLX_SAMPLE_IR = 10000


def _mlx_sample(kernels):
    """the kernels of a file built in normal runs: its smallest, then the first, middle and
    last where they are small; ENIGMA_REALWORLD_ALL=1: all of them"""
    if ALL:
        return [name for name, _ in kernels]
    picks = [min(kernels, key=lambda k: k[1])[0]]
    for name, size in (kernels[0], kernels[len(kernels) // 2], kernels[-1]):
        if size <= MLX_SAMPLE_IR and name not in picks:
            picks.append(name)
    return picks


# files whose kernels a backend fails today, with the reason the failures give: known bugs,
# printed in the counts and held to that reason until fixed (then the file leaves the list)
MLX_BUILD_FAILS = {
    # none today; (backend, file): 'text of the error' while a known bug stands
}


def _mlx_build(mlx_ir, backend, capsys):
    """builds the sample (all: every kernel) of each MLX file that compiles for backend;
    prints per file and in total, and returns the failures"""
    listed = {f.name: f for f in mlx_ir if f.name in MLX_FILES}
    assert set(listed) == set(MLX_FILES), sorted(set(MLX_FILES) - set(listed))
    jobs = os.cpu_count() or 2

    def build(name):
        sample = _mlx_sample(_mlx_kernels(mlx_ir[listed[name]].stdout))
        args = [a for k in sample for a in ("-k", k)]  # a file of 16 kernels or fewer prints no count without
        # a whole file builds its batches `jobs` at once; the samples' files run side by side
        t0 = time.time()
        r = _run("compile", listed[name], "-I", MLX, *_mlx_constant_args(name), "--backend", backend,
                 "-j", jobs if ALL else 1, *args, timeout=None if ALL else 900)
        return name, len(sample), r, time.time() - t0

    t0 = time.time()
    if ALL:
        results = [build(name) for name in sorted(listed)]
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(build, sorted(listed)))
    built = total = 0
    failures, lines = [], []
    for name, count, r, seconds in results:
        m = re.search(r"%s: (\d+) of (\d+) kernels? built" % backend, r.stdout)
        ok = int(m.group(1)) if m else 0
        built, total = built + ok, total + count
        known = MLX_BUILD_FAILS.get((backend, name))
        lines.append("  %s: %d of %d kernels built in %.1f s%s" % (name, ok, count, seconds,
                                                                   " (known: %s)" % known if known else ""))
        failed = not m or ok != count or r.returncode != 0
        if failed and not (known and m and known in r.stderr):
            failures.append("%s: %s" % (name, "\n".join(_errors(r.stderr)[:3]) or r.stderr.strip()[-500:]))
        elif known and not failed:
            failures.append("%s now builds for %s: take it off MLX_BUILD_FAILS" % (name, backend))
    _say(capsys, "\nmlx %s: %d of %d kernels built%s in %.1f s, %d files\n%s" % (
        backend, built, total, "" if ALL else " (a sample; ENIGMA_REALWORLD_ALL=1 builds every kernel)",
        time.time() - t0, len(results), "\n".join(lines)))
    return failures


def test_mlx_kernels_build_on_the_cpu_backend(mlx_ir, capsys):
    failures = _mlx_build(mlx_ir, "cpu", capsys)
    assert not failures, "\n".join(failures)


def test_mlx_kernels_pass_nvrtc(mlx_ir, capsys):
    if not _nvrtc_here():
        pytest.skip("NVRTC is not installed here")
    failures = _mlx_build(mlx_ir, "cuda", capsys)
    assert not failures, "\n".join(failures)
