"""Arrays of other libraries used in place (issue 13): NumPy, DLPack producers, the buffer
protocol, PyTorch and CuPy where installed. "In place" is checked by writing through the kernel
into the caller's array and by comparing the bound buffer's address with the array's.

PyTorch and CuPy are not installed on CI (their wheels are gigabytes); their tests run where
they are (the lent GPU machine runs this file with ENIGMA_TEST_BACKEND=cuda and without)."""

import array

import numpy as np
import pytest

import enigma

SAXPY = """
#include <metal_stdlib>
using namespace metal;
kernel void saxpy(device const float *x [[buffer(0)]], device float *y [[buffer(1)]],
                  constant float &a [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    y[i] = a * x[i] + y[i];
}
"""

SCALE_INT = """
kernel void scale(device int *v [[buffer(0)]], constant int &k [[buffer(1)]],
                  uint i [[thread_position_in_grid]]) {
    v[i] = v[i] * k;
}
"""


@pytest.fixture(scope="module")
def saxpy():
    return enigma.compile_source(SAXPY, "saxpy")


def _run_saxpy(rt, saxpy, x, y, a, n):
    rt.execute(saxpy, inputs=[x, y, np.float32(a)], grid=(n,), threads=(64,))


def _reference(x, y, a):
    return (np.float64(a) * np.asarray(x, np.float64) + np.asarray(y, np.float64))


class DLPackOnly:
    """An array that offers nothing but DLPack, as a new library might."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kw):
        return self._arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def _host_backend(rt):
    if rt.backend != "cpu":
        pytest.skip("host arrays are used in place on the cpu backend only")


def test_numpy_output_written_in_place(rt, rng, saxpy):
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = rng.uniform(-2, 2)
    want = _reference(x, y, a)
    _run_saxpy(rt, saxpy, x, y, a, n)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_out_keyword_writes_the_callers_array(rt, rng):
    c = enigma.compile_source(SAXPY, "saxpy")
    n = 257
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    want = _reference(x, y, 1.5)
    got = rt.execute(c, inputs=[x, np.float32(1.5)], out=y, grid=(n,), threads=(32,))
    assert got is y
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_wrap_is_the_callers_memory(rt, rng):
    _host_backend(rt)
    v = rng.integers(1, 1000, 64).astype(np.int32)
    buf = rt.wrap(v, "v")
    assert buf.borrowed.address == v.ctypes.data
    v[3] = 12345  # a write by the caller is the buffer's
    assert np.frombuffer(buf.read(), np.int32)[3] == 12345
    buf.write(np.array([7], np.int32), offset=8)  # and a write to the buffer is the caller's
    assert v[2] == 7
    buf.destroy()
    assert v[2] == 7  # destroy leaves the memory to its owner


def test_dlpack_producer_in_place(rt, rng):
    _host_backend(rt)
    c = enigma.compile_source(SCALE_INT, "scale")
    v = rng.integers(-1000, 1000, 300).astype(np.int32)
    want = v.astype(np.int64) * 3
    rt.execute(c, inputs=[DLPackOnly(v), np.int32(3)], grid=(300,), threads=(64,))
    np.testing.assert_array_equal(v, want)


def test_buffer_protocol_in_place(rt, rng):
    _host_backend(rt)
    c = enigma.compile_source(SCALE_INT, "scale")
    vals = [int(x) for x in rng.integers(-50, 50, 40)]
    arr = array.array("i", vals)
    rt.execute(c, inputs=[arr, np.int32(-2)], grid=(40,), threads=(8,))
    assert list(arr) == [x * -2 for x in vals]


def test_host_arrays_see_kernel_writes_on_every_backend(rt, rng):
    """On cuda the array is copied in and its written bytes back out: the same result."""
    c = enigma.compile_source(SCALE_INT, "scale")
    v = rng.integers(-1000, 1000, 100).astype(np.int32)
    want = v * 5
    rt.execute(c, inputs=[v, np.int32(5)], grid=(100,), threads=(32,))
    np.testing.assert_array_equal(v, want)


def test_non_contiguous_read_only_input_is_copied(rt, rng, saxpy):
    n = 128
    wide = rng.standard_normal(2 * n).astype(np.float32)
    x = wide[::2]  # strided: not contiguous, but the kernel only reads it
    y = rng.standard_normal(n).astype(np.float32)
    want = _reference(x, y, 0.5)
    _run_saxpy(rt, saxpy, x, y, 0.5, n)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_errors_name_the_parameter(rt, rng, saxpy):
    n = 64
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(2 * n).astype(np.float32)
    with pytest.raises(enigma.InvalidArgumentError, match=r"input for y .*not contiguous"):
        _run_saxpy(rt, saxpy, x, y[::2], 1.0, n)
    with pytest.raises(enigma.InvalidArgumentError, match=r"input for x .*dtype float64.*float"):
        _run_saxpy(rt, saxpy, x.astype(np.float64), y[:n].copy(), 1.0, n)
    ro = y[:n].copy()
    ro.setflags(write=False)
    with pytest.raises(enigma.InvalidArgumentError, match=r"input for y .*read-only.*writes y"):
        _run_saxpy(rt, saxpy, x, ro, 1.0, n)
    with pytest.raises(enigma.InvalidArgumentError, match=r"input for x .*empty"):
        _run_saxpy(rt, saxpy, x[:0], y[:n].copy(), 1.0, n)


# ---- PyTorch and CuPy, where installed --------------------------------------------------------

def test_torch_cpu_tensor_and_numpy_array_share_a_kernel_without_copies(rt, rng, saxpy):
    torch = pytest.importorskip("torch")
    _host_backend(rt)
    n = 500
    x_np = rng.standard_normal(n).astype(np.float32)
    y_t = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    want = _reference(x_np, y_t.numpy(), 0.25)
    address = y_t.data_ptr()
    _run_saxpy(rt, saxpy, x_np, y_t, 0.25, n)
    assert y_t.data_ptr() == address
    np.testing.assert_allclose(y_t.numpy(), want, rtol=1e-6, atol=1e-6)
    # and the other way round: a torch input, a NumPy output
    x_t = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    y_np = rng.standard_normal(n).astype(np.float32)
    want = _reference(x_t.numpy(), y_np, -1.0)
    _run_saxpy(rt, saxpy, x_t, y_np, -1.0, n)
    np.testing.assert_allclose(y_np, want, rtol=1e-6, atol=1e-6)


def _cuda_runtime(rt):
    if rt.backend != "cuda":
        pytest.skip("needs the cuda backend (ENIGMA_TEST_BACKEND=cuda)")


def test_torch_cuda_tensors_in_place(rt, rng, saxpy):
    torch = pytest.importorskip("torch")
    _cuda_runtime(rt)
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    n = 1 << 16
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    want = _reference(x.cpu().numpy(), y.cpu().numpy(), 2.0)
    buf = rt.wrap(y, "y")
    assert buf.borrowed.address == y.data_ptr()  # the tensor's own device memory
    buf.destroy()
    _run_saxpy(rt, saxpy, x, y, 2.0, n)
    torch.cuda.synchronize()
    np.testing.assert_allclose(y.cpu().numpy(), want, rtol=1e-6, atol=1e-6)


def test_cupy_arrays_in_place(rt, rng, saxpy):
    cp = pytest.importorskip("cupy")
    _cuda_runtime(rt)
    n = 4096
    x = cp.asarray(rng.standard_normal(n).astype(np.float32))
    y = cp.asarray(rng.standard_normal(n).astype(np.float32))
    want = _reference(cp.asnumpy(x), cp.asnumpy(y), -0.75)
    buf = rt.wrap(y, "y")
    assert buf.borrowed.address == y.data.ptr
    buf.destroy()
    _run_saxpy(rt, saxpy, x, y, -0.75, n)
    cp.cuda.Device().synchronize()
    np.testing.assert_allclose(cp.asnumpy(y), want, rtol=1e-6, atol=1e-6)


def test_cuda_tensor_on_the_cpu_backend_is_refused(rt, saxpy):
    torch = pytest.importorskip("torch")
    _host_backend(rt)
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    y = torch.zeros(16, device="cuda")
    with pytest.raises(enigma.InvalidArgumentError, match=r"input for y .*CUDA device memory"):
        _run_saxpy(rt, saxpy, np.ones(16, np.float32), y, 1.0, 16)


# ggml's convention: an operand that is absent is bound as src0 again, and the kernel tells
# the two apart by comparing pointers
ALIASED = """
kernel void scale_or_mask(device const float *x [[buffer(0)]],
                          device const float *mask [[buffer(1)]], device float *out [[buffer(2)]],
                          uint i [[thread_position_in_grid]]) {
    device const float *m = mask != x ? mask : nullptr;
    out[i] = m ? x[i] * m[i] : -x[i];
}
"""


@pytest.mark.parametrize("call", ["execute", "launch"])
def test_one_array_bound_to_two_parameters_is_one_buffer(rt, rng, call):
    """Metal binds one MTLBuffer to two indices as equal pointers; a host array passed for two
    parameters is one buffer on every backend (on cuda: one copy, not two)."""
    c = enigma.compile_source(ALIASED, "scale_or_mask")
    x = rng.standard_normal(200).astype(np.float32)
    m = rng.standard_normal(200).astype(np.float32)
    for mask, want in ((x, -x), (m, x * m)):
        out = np.zeros(200, np.float32)
        if call == "execute":
            rt.execute(c, inputs=[x, mask], out=out, grid=(200,), threads=(64,))
        else:
            rt.launch(c, grid=(200,), threads=(64,), x=x, mask=mask, out=out)
        np.testing.assert_array_equal(out, want)


DOUBLE_IN_PLACE = """
kernel void twice(device const float *src [[buffer(0)]], device float *dst [[buffer(1)]],
                  uint i [[thread_position_in_grid]]) {
    dst[i] = 2.0f * src[i];
}
"""


def test_an_array_bound_to_a_read_only_and_a_written_parameter_gets_the_writes(rt, rng):
    """ggml binds dst again for parameters it does not use: the writes through the written
    parameter come back (on cuda the one buffer is a copy, copied back once)."""
    c = enigma.compile_source(DOUBLE_IN_PLACE, "twice")
    x = rng.standard_normal(300).astype(np.float32)
    want = 2 * x
    rt.launch(c, grid=(300,), threads=(64,), src=x, dst=x)
    np.testing.assert_array_equal(x, want)
