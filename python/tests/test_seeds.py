"""Seeds 000 (two-pass reduction) and 002 (naive GEMM), their scripts run verbatim.

The scripts live in seeds/ exactly as the seed documents print them (the code blocks, in
order). They are executed from their files so that the kernels' source is available to the
tracer, as it is when a user runs the script."""

import os

import numpy as np
import pytest

import enigma
from enigma_testing import open_runtime

SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def _exec_script(name, needs_runtime=True):
    if needs_runtime:
        open_runtime("auto").close()  # the scripts open MetalRuntime() themselves
    path = os.path.join(SEEDS, name)
    with open(path, encoding="utf-8") as f:
        code = compile(f.read(), path, "exec")
    ns = {"__name__": "__seed__", "__file__": path}
    return code, ns


def test_seed002_naive_gemm_script_passes_its_assert(capsys):
    code, ns = _exec_script("seed002_naive_gemm.py")
    exec(code, ns)  # raises if the script's own assert_allclose fails
    assert capsys.readouterr().out.strip().endswith("pass")
    # and independently of the script's float32 reference: a float64 product
    ref = ns["a"].astype(np.float64) @ ns["b"].astype(np.float64)
    np.testing.assert_allclose(ns["c_gpu"], ref, rtol=1e-4, atol=1e-4)


def test_seed002_simdgroup_matrix_capability():
    rt = open_runtime("auto")
    assert isinstance(rt, enigma.MetalRuntime)
    caps = rt.device_capabilities()
    # seed 002's simdgroup-matrix variant starts with this line: enigma has the feature
    caps.require_m3("simdgroup_matrix_multiply_accumulate")
    assert caps.max_threads_per_threadgroup == 1024
    assert caps.simd_width == 32


def test_seed000_reduction_script():
    """First pass matches NumPy; the script's second pass asks for 4096 threads per
    threadgroup and must fail with the 1024 limit; a corrected second pass matches."""
    code, ns = _exec_script("seed000_reduction.py")
    with pytest.raises(enigma.LimitError) as info:
        exec(code, ns)
    msg = str(info.value)
    assert "1024" in msg and "4096" in msg, msg
    assert info.value.status == "ENIGMA_ERROR_LIMIT"
    # the error points at the kernel that was dispatched (the Python def of reduce_final)
    assert info.value.file.endswith("seed000_reduction.py")
    assert info.value.line == ns["reduce_final"].__wrapped__.__code__.co_firstlineno

    # pass 1 ran before the failure: one sum per threadgroup of 256
    a, partial = ns["a"], ns["partial"]
    ref = a.astype(np.float64).reshape(-1, 256).sum(axis=1)
    np.testing.assert_allclose(partial, ref, rtol=1e-4, atol=1e-3)

    # corrected second pass: reduce_final sums 8 SIMD groups, i.e. one threadgroup of 256
    # threads. Reduce the 4096 partials to 16 with pass 1, pad to 256, then run pass 2.
    rt, pass1, pass2 = ns["rt"], ns["compiled_pass1"], ns["compiled_pass2"]
    n_partial = partial.size
    second_raw = rt.execute(pass1, inputs=[partial], output_size=(n_partial // 256) * 4,
                            grid=(n_partial, 1, 1), threads=(256, 1, 1))
    second = np.frombuffer(second_raw, dtype=np.float32)
    padded = np.zeros(256, dtype=np.float32)
    padded[:second.size] = second
    result_raw = rt.execute(pass2, inputs=[padded], output_size=4, grid=(256, 1, 1),
                            threads=(256, 1, 1))
    result = np.frombuffer(result_raw, dtype=np.float32)[0]
    expected = a.astype(np.float64).sum()
    assert abs(result - expected) <= 1e-2 + 1e-5 * abs(expected), (result, expected)


def test_seed000_kernels_trace_to_the_expected_msl():
    """reduce_final's `final` is one MSL variable: declared before the if (so it lives past
    the loop), assigned in the loop body, and stored after it."""
    code, ns = _exec_script("seed000_reduction.py", needs_runtime=False)
    # run only the kernel definitions (everything before the dispatch)
    src = open(os.path.join(SEEDS, "seed000_reduction.py"), encoding="utf-8").read()
    defs = src[:src.index("compiled_pass1 =")]
    exec(compile(defs, os.path.join(SEEDS, "seed000_reduction.py"), "exec"), ns)
    msl = ns["reduce_final"].source
    lines = [l.strip() for l in msl.splitlines()]
    decl = lines.index("float final;")
    loop = next(i for i, l in enumerate(lines) if l.startswith("for (int i = 0; i < 8;"))
    update = lines.index("final = final + scratch[i];")
    store = lines.index("Result[0] = final;")
    assert decl < loop < update < store
    assert lines[update + 1] == "}"  # the update is the loop body's last statement
    assert "threadgroup float scratch[32];" in lines
    assert "threadgroup_barrier(mem_flags::mem_threadgroup);" in lines
    assert "device float* Result [[buffer(1)]]," in lines
    assert "device const float* Partial [[buffer(0)]]," in lines
    msl1 = ns["reduce_threadgroup"].source
    assert "uint n_simd_groups = tg_size / 32u;" in msl1
    assert "float simd_total = simd_sum(val);" in msl1
