"""A void function calling itself as its last act runs as a loop (src/pass/tailcall.c): a
carry-propagating index walker of the shape MLX's LoopedElemToLoc::next has, against the same
walk done in Python, from random starting points and step sizes."""

import numpy as np

import enigma

SOURCE = """
#include <metal_stdlib>
using namespace metal;
struct Walker {
    int index;
    int carries;
    void step(int n, int size) thread {
        index += n;
        if (index >= size) {
            int extra = index - size;
            index = 0;
            carries++;
            if (extra > 0) {
                step(extra, size);
            }
        }
    }
};
kernel void k(device const int *start [[buffer(0)]], device const int *steps [[buffer(1)]],
              device int *o [[buffer(2)]], constant int &size [[buffer(3)]],
              uint i [[thread_position_in_grid]]) {
    Walker w = {start[i], 0};
    w.step(steps[i], size);
    o[2 * i] = w.index;
    o[2 * i + 1] = w.carries;
}
"""


def walk(index, n, size):
    carries = 0
    while True:
        index += n
        if index < size:
            return index, carries
        extra = index - size
        index = 0
        carries += 1
        if extra <= 0:
            return index, carries
        n = extra


def test_tail_recursive_walker(rt, rng):
    count, size = int(rng.integers(50, 300)), int(rng.integers(2, 9))
    start = rng.integers(0, size, count).astype(np.int32)
    steps = rng.integers(0, 6 * size, count).astype(np.int32)
    o = np.zeros(2 * count, np.int32)
    rt.launch(enigma.compile_source(SOURCE, "k"), grid=(count, 1, 1), threads=(min(count, 64), 1, 1),
              start=start, steps=steps, o=o, size=np.int32(size))
    want = np.array([walk(int(s), int(n), size) for s, n in zip(start, steps)], np.int32).ravel()
    np.testing.assert_array_equal(o, want)
    assert want[1::2].max() > 1, "some walk carried more than once (the loop ran again)"
