"""Errors: compile diagnostics with file/line/column, dispatch limits, argument mistakes,
and DSL misuse found while tracing."""

import numpy as np
import pytest

import enigma
from enigma_testing import run_kernel

BAD_SYNTAX = """#include <metal_stdlib>
using namespace metal;
kernel void broken(device float* a [[buffer(0)]],
                   uint i [[thread_position_in_grid]])
{
    a[i] = a[i] +* ;
}
"""


def test_emit_stages():
    c = enigma.compile_source(BAD_SYNTAX.replace("a[i] +* ;", "a[i] * 2.0f;"), "broken")
    assert "broken" in c.emit("ir")
    assert "broken" in c.emit("c")


def test_compile_error_carries_diagnostics():
    with pytest.raises(enigma.CompileError) as info:
        enigma.compile_source(BAD_SYNTAX, "broken", filename="bad.metal")
    e = info.value
    assert e.status == "ENIGMA_ERROR_COMPILE"
    errors = [d for d in e.diagnostics if d.severity == "error"]
    assert errors, e.diagnostics
    d = errors[0]
    assert (d.file, d.line) == ("bad.metal", 6)
    assert 1 <= d.column <= len("    a[i] = a[i] +* ;") + 1
    assert (e.file, e.line, e.column) == (d.file, d.line, d.column)
    assert len(d) == 5 and d[4] == d.message  # (file, line, column, severity, message)
    assert "bad.metal:6:%d: error:" % d.column in str(e)


def test_undeclared_name_is_reported_at_its_position():
    src = BAD_SYNTAX.replace("a[i] +* ;", "a[i] + missing_thing;")
    with pytest.raises(enigma.CompileError) as info:
        enigma.compile_source(src, filename="undeclared.metal")
    d = next(d for d in info.value.diagnostics if d.severity == "error")
    assert (d.file, d.line, d.column) == ("undeclared.metal", 6, 19)
    assert "missing_thing" in d.message


def test_unsupported_feature_is_rejected_by_name():
    src = """#include <metal_stdlib>
using namespace metal;
kernel void t(texture2d<float> tex [[texture(0)]], device float* o [[buffer(0)]],
              uint2 p [[thread_position_in_grid]])
{
    o[p.x] = tex.read(p).x;
}
"""
    with pytest.raises(enigma.CompileError) as info:
        enigma.compile_source(src, filename="tex.metal")
    assert "texture" in str(info.value)
    assert "not supported" in str(info.value)
    assert info.value.line is not None


def test_compile_error_in_traced_kernel_names_the_python_line():
    @enigma.kernel
    def k(A: enigma.f32):
        i = enigma.thread_position_in_grid
        A[i] = enigma.Value("no_such_variable", enigma.f32)  # MSL the front end rejects

    with pytest.raises(enigma.CompileError) as info:
        enigma.compile(k)
    e = info.value
    d = next(d for d in e.diagnostics if d.severity == "error")
    assert d.file == "k.metal"
    msl_line = e.source.splitlines()[d.line - 1]
    assert "no_such_variable" in msl_line
    store_line = k.__wrapped__.__code__.co_firstlineno + 3
    assert (__file__, store_line) in e.python_locations
    assert "%s:%d: note: generated from this Python line" % (__file__, store_line) in str(e)


def test_threadgroup_size_over_the_limit(rt, rng):
    @enigma.kernel
    def copy(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        B[i] = A[i]

    a = rng.standard_normal(2048).astype(np.float32)
    c = enigma.compile(copy)
    with pytest.raises(enigma.LimitError) as info:
        rt.execute(c, inputs=[a], output_size=a.nbytes, grid=(2048, 1, 1), threads=(32, 64, 1))
    msg = str(info.value)
    assert "2048" in msg and "1024" in msg and "copy" in msg
    assert isinstance(info.value, enigma.DispatchError)
    # the error names the kernel's definition
    assert info.value.file == __file__
    assert info.value.line == copy.__wrapped__.__code__.co_firstlineno
    # the same compiled kernel still runs with a legal threadgroup
    out = run_kernel(rt, c, [a], np.float32, a.size, (2048, 1, 1), (1024, 1, 1))
    np.testing.assert_array_equal(out, a)


def test_hand_written_kernel_limit_error_points_at_the_kernel_line(rt):
    src = """#include <metal_stdlib>
using namespace metal;

kernel void fill(device uint* o [[buffer(0)]], uint i [[thread_position_in_grid]])
{
    o[i] = i;
}
"""
    c = enigma.compile_source(src, "fill")
    with pytest.raises(enigma.LimitError) as info:
        rt.execute(c, inputs=[], output_size=8192, grid=(2048,), threads=(2048,))
    assert (info.value.file, info.value.line) == ("fill.metal", 4)


def test_wrong_number_of_inputs(rt, rng):
    @enigma.kernel
    def add(A: enigma.f32, B: enigma.f32, C: enigma.f32):
        i = enigma.thread_position_in_grid
        C[i] = A[i] + B[i]

    a = rng.standard_normal(16).astype(np.float32)
    with pytest.raises(enigma.InvalidArgumentError, match="3 buffer parameters"):
        rt.execute(enigma.compile(add), inputs=[a], output_size=64, grid=(16,), threads=(16,))


def test_input_dtype_mismatch_is_refused(rt, rng):
    @enigma.kernel
    def add1(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        B[i] = A[i] + 1.0

    a = rng.standard_normal(16)  # float64
    with pytest.raises(enigma.InvalidArgumentError, match="float64"):
        rt.execute(enigma.compile(add1), inputs=[a], output_size=64, grid=(16,), threads=(16,))


def test_python_if_on_a_symbolic_value_is_a_trace_error():
    @enigma.kernel
    def k(A: enigma.f32):
        i = enigma.thread_position_in_grid
        if A[i] > 0:
            A[i] = 0.0

    with pytest.raises(enigma.TraceError, match="enigma.if_"):
        enigma.compile(k)


def test_else_without_if_is_a_trace_error():
    @enigma.kernel
    def k(A: enigma.f32):
        with enigma.else_():
            A[0] = 1.0

    with pytest.raises(enigma.TraceError, match="must follow an enigma.if_"):
        enigma.compile(k)


def test_missing_annotation_is_a_trace_error():
    @enigma.kernel
    def k(A, B: enigma.f32):
        B[0] = 1.0

    with pytest.raises(enigma.TraceError, match="parameter 'A'"):
        enigma.compile(k)


def test_calling_a_kernel_directly_is_an_error():
    @enigma.kernel
    def k(A: enigma.f32):
        A[0] = 1.0

    with pytest.raises(TypeError, match="enigma.compile"):
        k(np.zeros(1, np.float32))


def test_dsl_function_outside_a_kernel():
    with pytest.raises(enigma.TraceError, match="only be called while"):
        enigma.barrier()


def test_constant_out_of_range():
    @enigma.kernel
    def k(A: enigma.u8):
        A[0] = 300

    with pytest.raises(enigma.TraceError, match="300 does not fit in u8"):
        enigma.compile(k)


def test_checked_mode_reports_out_of_bounds_with_positions(rng):
    try:
        crt = enigma.Runtime("cpu", checked=True)
    except enigma.UnavailableError as e:
        if "not built into this enigma" in str(e):
            pytest.skip(str(e))
        raise

    @enigma.kernel
    def shift(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        B[i] = A[i + 1]          # the last thread reads one past the end of A

    compiled = enigma.compile(shift)
    if compiled.emit("c", checked=True) == compiled.emit("c"):
        crt.close()
        pytest.skip("the cpu backend does not instrument checked builds yet (its C is the same)")
    n = 64
    a = rng.standard_normal(n).astype(np.float32)
    with pytest.raises(enigma.CheckFailedError) as info:
        crt.execute(compiled, inputs=[a], output_size=a.nbytes, grid=(n,),
                    threads=(32,))
    e = info.value
    assert e.reports and e.reports[0]["kind"] == "out-of-bounds"
    line = shift.__wrapped__.__code__.co_firstlineno + 3
    assert e.reports[0]["python_location"] == (__file__, line)
    assert (e.file, e.line) == (__file__, line)
    crt.close()


def test_kernel_without_source_warns_that_assignments_are_untracked():
    code = (
        "import enigma\n"
        "@enigma.kernel\n"
        "def k(A: enigma.f32):\n"
        "    s = enigma.f32(0.0)\n"
        "    with enigma.for_range(0, 4) as i:\n"
        "        s = s + A[i]\n"
        "    A[0] = s\n")
    ns = {}
    exec(compile(code, "<no source>", "exec"), ns)
    with pytest.warns(UserWarning, match="source of kernel k is not available"):
        ns["k"].source


def test_threadgroup_memory_over_the_device_limit(rt):
    limit = rt.device_capabilities().max_threadgroup_memory
    count = limit // 4 + 1

    @enigma.kernel
    def big(A: enigma.f32):
        tile = enigma.threadgroup_alloc(enigma.f32, count)
        l = enigma.thread_position_in_threadgroup("x")
        tile[l] = 1.0
        enigma.barrier()
        A[l] = tile[l]

    with pytest.raises(enigma.LimitError) as info:
        rt.execute(enigma.compile(big), inputs=[], output_size=256, grid=(64,), threads=(64,))
    msg = str(info.value)
    assert str(limit) in msg and str(count * 4) in msg, msg


def test_a_long_compile_says_so_once_on_a_terminal(monkeypatch):
    """A compile past a second prints one line on stderr when it is a terminal; never when
    ENIGMA_QUIET=1 or when stderr is not a terminal."""
    import importlib
    import io
    import time

    K = importlib.import_module("enigma.kernel")  # the module (enigma.kernel is the decorator)

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for quiet, tty, said in (("", True, True), ("1", True, False), ("", False, False)):
        err = Terminal() if tty else io.StringIO()
        monkeypatch.setattr(K.sys, "stderr", err)
        monkeypatch.setenv("ENIGMA_QUIET", quiet)
        with K._compiling_note("slow_kernel"):
            time.sleep(1.3)
        text = err.getvalue()
        assert (text.count("enigma: compiling slow_kernel") == 1) == said, (quiet, tty, text)
        assert text.count("compiling") <= 1
