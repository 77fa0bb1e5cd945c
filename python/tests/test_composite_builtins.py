"""fmin3, fmax3, fmedian3, divide and nextafter (MSL built-ins that enigma composes from others),
with the integer min3, max3 and median3, called directly and as Apple's __metal_* intrinsics,
against NumPy."""

import numpy as np

import enigma

SOURCE = """
#include <metal_stdlib>
using namespace metal;
kernel void k(device const float *a [[buffer(0)]], device float *o [[buffer(1)]],
              device int *q [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    float x = a[3 * i], y = a[3 * i + 1], z = a[3 * i + 2];
    o[5 * i] = fmin3(x, y, z);
    o[5 * i + 1] = fmax3(x, y, z);
    o[5 * i + 2] = fmedian3(x, y, z);
    o[5 * i + 3] = divide(x, y);
    o[5 * i + 4] = __metal_fmedian3(z, x, y, false);
    int p = int(x * 10.0f), r = int(y * 10.0f), s = int(z * 10.0f);
    q[3 * i] = min3(p, r, s);
    q[3 * i + 1] = max3(p, r, s);
    q[3 * i + 2] = median3(p, r, s);
}
"""


def test_three_operand_min_max_median_and_divide(rt, rng):
    n = int(rng.integers(20, 200))
    a = rng.standard_normal(3 * n).astype(np.float32)
    o = np.zeros(5 * n, np.float32)
    q = np.zeros(3 * n, np.int32)
    c = enigma.compile_source(SOURCE, "k")
    rt.execute(c, inputs=[a, o], out=q, grid=(n,), threads=(32,))
    a3 = a.reshape(n, 3).astype(np.float64)
    want = np.stack([a3.min(1), a3.max(1), np.median(a3, 1), a3[:, 0] / a3[:, 1], np.median(a3, 1)], 1)
    np.testing.assert_allclose(o.reshape(n, 5), want, rtol=1e-6)
    ai = (a.reshape(n, 3) * np.float32(10)).astype(np.int32)
    np.testing.assert_array_equal(q.reshape(n, 3), np.stack([ai.min(1), ai.max(1), np.median(ai, 1)], 1))


NEXTAFTER = """
#include <metal_stdlib>
using namespace metal;
kernel void k(device const float *a [[buffer(0)]], device float *o [[buffer(1)]],
              device half *h [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    o[i] = nextafter(a[2 * i], a[2 * i + 1]);
    h[i] = __metal_nextafter(half(a[2 * i]), half(a[2 * i + 1]));
}
"""


def test_nextafter_steps_one_ulp_like_numpy(rt, rng):
    n = int(rng.integers(40, 200))
    a = rng.standard_normal(2 * n).astype(np.float32)
    a[0], a[2], a[3], a[4], a[6], a[7], a[9] = 0, 1.5, 1.5, np.nan, 0, -0.0, np.inf
    o = np.zeros(n, np.float32)
    h = np.zeros(n, np.float16)
    rt.execute(enigma.compile_source(NEXTAFTER, "k"), inputs=[a, o], out=h, grid=(n,), threads=(32,))
    pairs = a.reshape(n, 2)
    np.testing.assert_array_equal(o, np.nextafter(pairs[:, 0], pairs[:, 1]))
    p16 = pairs.astype(np.float16)
    np.testing.assert_array_equal(h, np.nextafter(p16[:, 0], p16[:, 1]))
