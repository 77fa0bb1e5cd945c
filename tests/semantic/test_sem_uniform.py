"""Values that are the same in every thread (the uniformity pass marks them, and backends
may keep one copy per SIMD group) next to values that only look the same: locals changed
under thread-dependent control, loops left at different iterations, private arrays read at
per-thread indices, pointers to private variables, values read from threadgroup memory."""
import numpy as np

from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

MIXED_SRC = HEADER + """
void add_to(thread int& dst, int v) { dst += v; }

kernel void k(device const int* x [[buffer(0)]], device int* out [[buffer(1)]],
              constant int& n [[buffer(2)]], uint lid [[thread_index_in_threadgroup]],
              uint gid [[thread_position_in_grid]], uint group [[threadgroup_position_in_grid]]) {
    int u = n * 3 + int(group);          // uniform
    int t = u;                           // uniform until the branch below
    if (x[gid] % 2 == 0) t += 5;         // now per thread
    int table[8];
    for (int i = 0; i < 8; i++) table[i] = u + i * i;   // a uniform private array
    int picked = table[x[gid] & 7];      // read at a per-thread index
    int steps = 0;
    for (int i = 0; i < n; i++) {        // left at a per-thread iteration
        if (i * 7 > x[gid] % 50) break;
        steps++;
    }
    int acc = u;
    add_to(acc, int(lid));               // through a reference: per thread
    add_to(u, 1);                        // the same in every thread, through a pointer
    threadgroup int shared_val;
    if (lid == 0) shared_val = x[gid] * 2;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    int from_tg = shared_val;            // the same in every thread of the group
    out[gid * 6 + 0] = t;
    out[gid * 6 + 1] = picked;
    out[gid * 6 + 2] = steps;
    out[gid * 6 + 3] = acc;
    out[gid * 6 + 4] = u;
    out[gid * 6 + 5] = from_tg;
}
"""


def test_uniform_and_thread_dependent_locals(run, rng):
    groups, tg = 5, 64
    total = groups * tg
    x = ints(rng, total, 1, 1000)
    n = int(rng.integers(5, 20))
    out = run(MIXED_SRC, {"x": x, "out": garbage(rng, total * 6, np.int32), "n": str(n)}, ["out"],
              threadgroups=groups, threads=tg)["out"].reshape(total, 6)
    want = np.zeros((total, 6), dtype=np.int64)
    for gid in range(total):
        g, lid, v = gid // tg, gid % tg, int(x[gid])
        u = n * 3 + g
        steps = 0
        for i in range(n):
            if i * 7 > v % 50:
                break
            steps += 1
        want[gid] = [u + (5 if v % 2 == 0 else 0), u + (v & 7) ** 2, steps, u + lid, u + 1, int(x[g * tg]) * 2]
    exact(out, want.astype(np.int32), "uniform and per-thread locals")


LOOP_CARRIED_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
              constant uint& rounds [[buffer(2)]], uint gid [[thread_position_in_grid]],
              uint lid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    float a = 1.0f, b = 0.5f;            // uniform, carried around the loop
    float mine = x[gid];
    for (uint r = 0; r < rounds; r++) {
        float c = a + b;
        a = b;
        b = c * 0.5f;
        if (lane % 4 == 1) mine += a;    // divergent use of uniform values
        else mine -= b * 0.25f;
    }
    if (lid < 7) a = mine;               // a becomes per thread here
    out[gid] = a + b;
}
"""


def test_loop_carried_uniform_values_in_divergent_code(run, rng):
    groups, tg = 3, 96
    total = groups * tg
    x = floats(rng, total, -2, 2)
    rounds = int(rng.integers(3, 12))
    out = run(LOOP_CARRIED_SRC, {"x": x, "out": garbage(rng, total), "rounds": str(rounds)}, ["out"],
              threadgroups=groups, threads=tg)["out"]
    want = np.zeros(total)
    for gid in range(total):
        a, b, mine = 1.0, 0.5, float(x[gid])
        lane, lid = gid % tg % 32, gid % tg
        for _ in range(rounds):
            c = a + b
            a, b = b, c * 0.5
            mine = mine + a if lane % 4 == 1 else mine - b * 0.25
        if lid < 7:
            a = mine
        want[gid] = a + b
    close(out, want, rtol=1e-5, atol=1e-5, what=f"{rounds} rounds")
