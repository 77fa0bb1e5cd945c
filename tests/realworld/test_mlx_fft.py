"""MLX's FFT kernels (fft.metal: Stockham radix codelets passed to the butterfly templates as
function pointers, function constants choosing the radix steps), compiled unmodified from
../shared/realworld and run on the cpu backend (or cuda with ENIGMA_TEST_BACKEND=cuda) as
MLX's host would dispatch them: threadgroups of (1, batches per threadgroup, threads per
DFT). Checked against numpy.fft in float64 on fresh random inputs. The function constants
are the ones MLX's plan sets for the size: the Stockham steps per radix, elements per thread."""

import os

import numpy as np
import pytest

import enigma

from .conftest import realworld_dir

MLX = realworld_dir() / "mlx"
KERNELS = MLX / "mlx" / "backend" / "metal" / "kernels"

pytestmark = pytest.mark.skipif(not KERNELS.is_dir(), reason="../shared/realworld is not here")

RADICES = (13, 11, 8, 7, 6, 5, 4, 3, 2)


def _constants(steps, elems_per_thread, inverse):
    c = {"inv_": inverse, "is_power_of_2_": True, "elems_per_thread_": elems_per_thread, "rader_m_": 1,
         "use_bluestein_twiddle_table_": False}
    for r in RADICES:
        c["radix_%d_steps_" % r] = steps.get(r, 0)
        c["rader_%d_steps_" % r] = 0
    return c


@pytest.fixture(scope="module")
def rt():
    return enigma.Runtime(os.environ.get("ENIGMA_TEST_BACKEND", "cpu"))


# n, its Stockham decomposition (radix: steps) and elements per thread (the largest radix
# used: each thread does one butterfly of it per step), forward or inverse. Each case is one
# specialisation of the kernel, compiled once (the cpu backend's C for it is large).
@pytest.mark.parametrize("n,steps,ept,inverse", [(64, {8: 2}, 8, False), (32, {4: 1, 8: 1}, 8, True)])
def test_c2c_fft(rt, n, steps, ept, inverse):
    rng = np.random.default_rng()
    batch, per_tg = int(rng.integers(3, 7)), 2
    m = n // ept  # threads per DFT
    x = (rng.standard_normal((batch, n)) + 1j * rng.standard_normal((batch, n))).astype(np.complex64)
    out = np.full((batch, n), np.complex64(7 + 7j))
    path = KERNELS / "fft.metal"
    k = enigma.compile_source(path.read_text(), "fft_mem_256_float2_float2", filename=str(path),
                              include_dirs=[str(MLX)], constants=_constants(steps, ept, inverse))
    groups = -(-batch // per_tg)
    rt.launch(k, grid=(groups, per_tg, m), threads=(1, per_tg, m),
              **{"in": x, "out": out, "n": np.int32(n), "batch_size": np.int32(batch)})
    xd = x.astype(np.complex128)
    want = np.fft.ifft(xd, axis=1) if inverse else np.fft.fft(xd, axis=1)
    np.testing.assert_allclose(out.astype(np.complex128), want, rtol=1e-4, atol=1e-4 * np.sqrt(n))
