"""A library of many kernels (more than 16, as kernel libraries such as ggml's have) is built
a kernel at a time when a pipeline is created: every kernel still runs and computes its own
result."""

import numpy as np

import enigma

KERNELS = 24
SOURCE = "\n".join(
    "kernel void k%d(device float *x [[buffer(0)]], uint i [[thread_position_in_grid]]) "
    "{ x[i] = x[i] * %d.0f + %d.0f; }" % (j, j + 2, j) for j in range(KERNELS))


def test_each_kernel_of_a_large_library_runs_its_own_code(rt, rng):
    for j in sorted(rng.choice(KERNELS, 4, replace=False)) + [KERNELS - 1]:
        c = enigma.compile_source(SOURCE, "k%d" % j)
        x = rng.standard_normal(int(rng.integers(50, 300))).astype(np.float32)
        want = x.astype(np.float64) * (j + 2) + j
        rt.execute(c, inputs=[], out=x, grid=(x.size,), threads=(32,))
        np.testing.assert_allclose(x, want, rtol=1e-6, atol=1e-6)
