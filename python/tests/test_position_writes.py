"""A kernel may write its own copy of a position attribute (ggml's `tgpig.z = 0;` in its
mul_mv_id kernels): the write changes that thread's copy only."""

import numpy as np

import enigma

SOURCE = """
kernel void k(device uint *o [[buffer(0)]], uint3 tg [[threadgroup_position_in_grid]],
              uint l [[thread_index_in_threadgroup]]) {
    uint z = tg.z;
    tg.z = 0;
    l += 1;
    o[(z * 4 + tg.x) * 8 + l - 1] = tg.z * 100 + tg.x * 10 + l;
}
"""


def test_a_kernel_writes_its_copy_of_a_position(rt):
    o = np.zeros(3 * 4 * 8, np.uint32)
    rt.execute(enigma.compile_source(SOURCE, "k"), inputs=[], out=o, grid=(32, 1, 3), threads=(8, 1, 1))
    want = np.array([x * 10 + l + 1 for z in range(3) for x in range(4) for l in range(8)], np.uint32)
    np.testing.assert_array_equal(o, want)
