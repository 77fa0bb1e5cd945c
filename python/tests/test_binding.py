"""The ctypes layer: loading, version, devices, buffers, status -> exception mapping."""

import ctypes
import os

import numpy as np
import pytest

import enigma
from enigma import _lib


def test_version_matches_header():
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "enigma.h")
    text = open(header).read()
    parts = []
    for what in ("MAJOR", "MINOR", "PATCH"):
        line = next(l for l in text.splitlines() if "ENIGMA_VERSION_" + what in l)
        parts.append(line.split()[-1])
    assert enigma.version().startswith(".".join(parts))


def test_library_found_through_environment_or_build():
    L = _lib.lib()
    assert os.path.exists(L.path)
    if os.environ.get("ENIGMA_LIBRARY"):
        assert os.path.samefile(L.path, os.environ["ENIGMA_LIBRARY"])


def test_missing_library_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("ENIGMA_LIBRARY", str(tmp_path / "nope.so"))
    with pytest.raises(enigma.UnavailableError) as info:
        _lib.Library()
    assert "nope.so" in str(info.value)


def test_status_mapping_covers_every_status():
    L = _lib.lib()
    from enigma.errors import STATUS_NAMES, error_for_status
    described = [_lib.decode(L.enigma_status_name(i)) for i in range(len(STATUS_NAMES))]
    assert described[0] == "ok" and len(set(described)) == len(STATUS_NAMES)
    assert _lib.decode(L.enigma_status_name(len(STATUS_NAMES))) == "unknown status"
    expected = [None, enigma.InvalidArgumentError, enigma.CompileError, enigma.LimitError,
                enigma.UnavailableError, enigma.KernelFaultError, enigma.CheckFailedError,
                enigma.EnigmaIOError, enigma.EnigmaMemoryError, enigma.InternalError,
                enigma.DispatchTimeoutError, enigma.CancelledError]
    for status in range(1, len(STATUS_NAMES)):
        e = error_for_status(status, "message %d" % status)
        assert type(e) is expected[status]
        assert str(e) == "message %d" % status
        assert e.status == STATUS_NAMES[status]


def test_device_open_and_info(rt):
    from enigma_testing import BACKEND
    caps = rt.device_capabilities()
    assert caps.backend == BACKEND
    if BACKEND == "cpu":
        assert caps.name.startswith("cpu")
    assert caps.max_threads_per_threadgroup == 1024
    assert caps.simd_width == 32
    assert caps.max_threadgroup_memory >= 32 * 1024
    assert caps.compute_units >= 1
    caps.require("simd_sum")
    caps.require("threadgroup memory")
    with pytest.raises(enigma.UnavailableError, match="textures are not supported"):
        caps.require("textures")
    with pytest.raises(enigma.UnavailableError, match="does not know"):
        caps.require("warp_specialization_9000")


def test_unknown_backend_is_invalid_argument():
    with pytest.raises(enigma.EnigmaError) as info:
        enigma.Runtime("opencl")
    assert "opencl" in str(info.value)


def test_cuda_backend_opens_or_says_why():
    try:
        r = enigma.Runtime("cuda")
    except enigma.UnavailableError as e:
        assert str(e).startswith("cuda backend unavailable: ")
        assert e.status == "ENIGMA_ERROR_UNAVAILABLE"
    else:
        assert r.device_capabilities().backend == "cuda"
        r.close()


def test_buffer_round_trip(rt, rng):
    data = rng.standard_normal(1000).astype(np.float32)
    with rt.buffer(data) as b:
        assert b.nbytes == data.nbytes
        np.testing.assert_array_equal(b.numpy(np.float32), data)
        more = rng.standard_normal(10).astype(np.float32)
        b.write(more, offset=40)
        got = b.numpy(np.float32)
        np.testing.assert_array_equal(got[10:20], more)
        np.testing.assert_array_equal(got[:10], data[:10])
    with rt.buffer(nbytes=64) as z:
        assert z.read() == bytes(64)


def test_buffer_errors_carry_the_c_message(rt):
    with rt.buffer(nbytes=16) as b:
        with pytest.raises(enigma.InvalidArgumentError) as info:
            b.read(64)
        assert info.value.status == "ENIGMA_ERROR_INVALID_ARGUMENT"
        assert str(info.value)  # the library's message, not an empty one
    with pytest.raises(enigma.InvalidArgumentError):
        rt.buffer(nbytes=0)


def test_every_declared_function_exists():
    L = _lib.lib()
    missing = [n for n in _lib.PROTOTYPES if not L.has(n)]
    assert not missing, missing


def test_struct_layouts_are_sane():
    # the C structs as ctypes lays them out on this ABI
    assert ctypes.sizeof(_lib.Size3) == 12
    assert _lib.DeviceInfo.max_threadgroup_memory.offset == 24
    assert _lib.CompileOptions.backend_flags.offset == 32


# Metal's setThreadgroupMemoryLength:0 is a length: ggml sets it for matrix-vector kernels that
# take a [[threadgroup(0)]] scratch parameter their quantisation type does not use
UNUSED_SCRATCH = """
kernel void twice(device float *x [[buffer(0)]], threadgroup float *scratch [[threadgroup(0)]],
                  constant uint &touch [[buffer(1)]], uint i [[thread_position_in_grid]],
                  ushort t [[thread_index_in_threadgroup]]) {
    if (touch) scratch[t] = x[i];
    x[i] = 2.0f * x[i];
}
"""


def test_zero_bytes_of_threadgroup_memory_are_a_length(rt, rng):
    c = enigma.compile_source(UNUSED_SCRATCH, "twice")
    x = rng.standard_normal(100).astype(np.float32)
    want = 2 * x
    rt.launch(c, grid=(100,), threads=(32,), threadgroup_memory={0: 0}, x=x, touch=np.uint32(0))
    np.testing.assert_array_equal(x, want)


def test_an_access_to_zero_bytes_of_threadgroup_memory_is_out_of_bounds(rng):
    try:
        crt = enigma.Runtime("cpu", checked=True)
    except enigma.UnavailableError as e:
        if "not built into this enigma" in str(e):
            pytest.skip(str(e))
        raise
    c = enigma.compile_source(UNUSED_SCRATCH, "twice")
    x = rng.standard_normal(64).astype(np.float32)
    with pytest.raises(enigma.CheckFailedError) as info:
        crt.launch(c, grid=(64,), threads=(32,), threadgroup_memory={0: 0}, x=x,
                   touch=np.uint32(1))
    assert info.value.reports[0]["kind"] == "out-of-bounds"
    crt.close()
