"""No kernel takes its host down (issue 14), through Python and the CLI on the cpu backend:
a faulting kernel raises KernelFaultError naming it and the interpreter carries on; an
endless kernel stops at its time limit (DispatchTimeoutError) or when cancelled from
another thread (CancelledError); after each, 100 dispatches compute right against NumPy.
The C API's side is tests/robust/test_robust.c."""

import os
import subprocess
import threading
import time

import numpy as np
import pytest

import enigma

SOURCE = """
kernel void wild_write(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    a[i * 100000000u] = 1.0f;
}
kernel void wild_read(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    a[i] = a[i + 300000000u];
}
kernel void endless(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    int n = 0;
    while (a[0] == 0.0f) n++;
    a[1] = float(n);
}
kernel void saxpy(device const float *x [[buffer(0)]], device float *y [[buffer(1)]],
                  constant float &k [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    y[i] = k * x[i] + y[i];
}
"""

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="module")
def rt():
    r = enigma.Runtime("cpu")
    yield r
    r.close()


@pytest.fixture(scope="module")
def kernels():
    return {k: enigma.compile_source(SOURCE, k, filename="robust.metal")
            for k in ("wild_write", "wild_read", "endless", "saxpy")}


def _still_right(rt, kernels, rounds=100):
    rng = np.random.default_rng()
    for _ in range(rounds):
        x = rng.standard_normal(1000).astype(np.float32)
        y = rng.standard_normal(1000).astype(np.float32)
        k = np.float32(rng.uniform(-2, 2))
        want = np.float64(k) * x + y
        rt.execute(kernels["saxpy"], inputs=[x, y, k], grid=(1000,), threads=(64,))
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel", ["wild_write", "wild_read"])
def test_a_faulting_kernel_raises_and_the_interpreter_carries_on(rt, kernels, kernel):
    a = np.zeros(1024, np.float32)
    with pytest.raises(enigma.KernelFaultError) as info:
        rt.execute(kernels[kernel], inputs=[], output_size=a.nbytes, grid=(64,), threads=(32,))
    msg = str(info.value)
    assert "kernel '%s'" % kernel in msg and "SIGSEGV" in msg and "buffer 'a'" in msg, msg
    _still_right(rt, kernels)


def test_an_endless_kernel_stops_at_its_time_limit(rt, kernels):
    t0 = time.monotonic()
    with pytest.raises(enigma.DispatchTimeoutError) as info:
        rt.execute(kernels["endless"], inputs=[], output_size=4096, grid=(256,), threads=(32,),
                   timeout=0.3)
    took = time.monotonic() - t0
    assert 0.3 <= took < 0.4, took
    assert "kernel 'endless'" in str(info.value) and "0.300 s" in str(info.value)
    _still_right(rt, kernels)


def _cancel_endless(runtime, kernels, after):
    """Runs the endless kernel and cancels it from another thread `after` seconds later;
    returns how long the dispatch took to return after the cancel."""
    when = {}

    def cancel_soon():
        time.sleep(after)
        when["at"] = time.monotonic()
        runtime.cancel()

    t = threading.Thread(target=cancel_soon)
    t.start()
    with pytest.raises(enigma.CancelledError, match="kernel 'endless'"):
        runtime.execute(kernels["endless"], inputs=[], output_size=4096, grid=(256,), threads=(32,))
    returned = time.monotonic()
    t.join()
    return returned - when["at"]


def test_a_dispatch_cancelled_from_another_thread(rt, kernels):
    assert _cancel_endless(rt, kernels, 0.15) < 0.1
    _still_right(rt, kernels)


def _cli():
    cli = os.environ.get("ENIGMA_CLI", os.path.join(ROOT, "build", "enigma"))
    if not os.path.exists(cli):
        pytest.skip("the enigma CLI is not built (set ENIGMA_CLI)")
    return cli


@pytest.mark.parametrize("kernel", ["wild_write", "wild_read"])
def test_cli_reports_a_fault_with_exit_code_3(tmp_path, kernel):
    src = tmp_path / "robust.metal"
    src.write_text(SOURCE)
    p = subprocess.run([_cli(), "run", str(src), "-k", kernel, "--backend", "cpu",
                        "--grid", "64", "--threads", "32", "a=zeros:64"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 3, p.stderr
    assert "kernel '%s'" % kernel in p.stderr and "SIGSEGV" in p.stderr, p.stderr
    assert "buffer 'a' (buffer(0), 256 bytes)" in p.stderr, p.stderr


def test_cli_timeout(tmp_path):
    src = tmp_path / "robust.metal"
    src.write_text(SOURCE)
    t0 = time.monotonic()
    p = subprocess.run([_cli(), "run", str(src), "-k", "endless", "--backend", "cpu",
                        "--grid", "64", "--threads", "32", "a=zeros:64", "--timeout", "0.3"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    took = time.monotonic() - t0
    assert p.returncode == 3, p.stderr
    assert "time limit of 0.300 s" in p.stderr, p.stderr
    assert took < 2.0, took  # the limit, plus the CLI's start and the kernel's compile
    env = dict(os.environ, ENIGMA_DISPATCH_TIMEOUT="soon")
    p = subprocess.run([_cli(), "run", str(src), "-k", "endless", "--backend", "cpu",
                        "--grid", "64", "--threads", "32", "a=zeros:64"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode != 0 and "ENIGMA_DISPATCH_TIMEOUT='soon'" in p.stderr, p.stderr


# ---- the cuda backend (the lent GPU machine: ENIGMA_TEST_BACKEND=cuda) -------------------------

@pytest.fixture(scope="module")
def cuda_rt():
    if os.environ.get("ENIGMA_TEST_BACKEND") != "cuda":
        pytest.skip("needs ENIGMA_TEST_BACKEND=cuda and a GPU")
    os.environ["ENIGMA_CUDA_ISOLATE"] = "1"  # time limits stop kernels by ending the worker
    try:
        r = enigma.Runtime("cuda")
    finally:
        del os.environ["ENIGMA_CUDA_ISOLATE"]
    yield r
    r.close()


def test_cuda_endless_kernel_stops_at_its_time_limit(cuda_rt, kernels):
    for limit in (0.3, 0.5):
        t0 = time.monotonic()
        with pytest.raises(enigma.DispatchTimeoutError, match="kernel 'endless'"):
            cuda_rt.execute(kernels["endless"], inputs=[], output_size=4096, grid=(256,),
                            threads=(32,), timeout=limit)
        took = time.monotonic() - t0
        print("cuda: a %.1f s limit returned after %.3f s" % (limit, took))
        assert limit <= took < limit + 0.1, took
        _still_right(cuda_rt, kernels)


def test_cuda_dispatch_cancelled_from_another_thread(cuda_rt, kernels):
    late = _cancel_endless(cuda_rt, kernels, 0.2)
    print("cuda: returned %.3f s after the cancel" % late)
    assert late < 0.1
    _still_right(cuda_rt, kernels)


def test_cuda_fault_then_correct_dispatches(cuda_rt, kernels):
    with pytest.raises(enigma.KernelFaultError, match="wild_write"):
        cuda_rt.execute(kernels["wild_write"], inputs=[], output_size=4096, grid=(64,),
                        threads=(32,))
    _still_right(cuda_rt, kernels)


# ---- out of memory where the user sets the size ----------------------------------------------

def test_cli_sizes_beyond_the_machine_are_refused_with_their_size(tmp_path):
    src = tmp_path / "robust.metal"
    src.write_text(SOURCE)
    p = subprocess.run([_cli(), "run", str(src), "-k", "wild_write", "--backend", "cpu",
                        "--grid", "64", "--threads", "32", "a=zeros:100000000000000"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 3, p.stderr
    assert "100000000000000 elements of 4 bytes exceed this machine's" in p.stderr, p.stderr
    # a .npy whose header promises far more data than the file holds: refused before allocating
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }"
    header += " " * (118 - len(header)) + "\n"
    npy = tmp_path / "lies.npy"
    npy.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
                    + b"\0" * 16)
    p = subprocess.run([_cli(), "run", str(src), "-k", "wild_write", "--backend", "cpu",
                        "--grid", "64", "--threads", "32", "a=@%s" % npy],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode != 0, p.stderr
    assert "promises 4000000000000 bytes of data but the file holds 16" in p.stderr, p.stderr


def test_python_buffer_beyond_the_machine(rt):
    with pytest.raises(enigma.EnigmaMemoryError, match="larger than this machine's memory"):
        rt.buffer(nbytes=1 << 60)
