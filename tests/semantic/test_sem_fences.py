"""Fences (Metal spec, "Fence Functions": atomic_thread_fence(mem_flags, memory_order,
thread_scope = thread_scope_device)). A fence orders one thread's memory accesses; what a
test can observe is the pattern fences exist for: data published before a release fence and
an atomic, read after the atomic and an acquire fence by another threadgroup. The
"last threadgroup sums the partial sums" reduction below needs exactly that on a GPU, and
finishes whatever order the threadgroups run in (no thread waits for another). Results are
exact integer sums, checked against NumPy."""
import numpy as np

from semharness import exact, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"
TG = 64

LAST_GROUP_SUM_SRC = HEADER + """
kernel void k(device const int* x [[buffer(0)]], device int* partial [[buffer(1)]],
              device atomic_uint* arrived [[buffer(2)]], device int* total [[buffer(3)]],
              uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]],
              uint groups [[threadgroups_per_grid]], uint i [[thread_position_in_grid]]) {
    threadgroup int sums[64];
    threadgroup bool last;
    sums[tid] = x[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = 32; s > 0; s >>= 1) {
        if (tid < s) sums[tid] += sums[tid + s];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (tid == 0) {
        partial[group] = sums[0];
        // publish the partial sum before counting this threadgroup as arrived
        atomic_thread_fence(mem_flags::mem_device, memory_order_release, thread_scope_device);
        uint before = atomic_fetch_add_explicit(arrived, 1u, memory_order_relaxed);
        last = before == groups - 1;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (!last) return;
    // every other threadgroup's partial sum happens before this read
    atomic_thread_fence(mem_flags::mem_device, memory_order_acquire);
    int mine = 0;
    for (uint g = tid; g < groups; g += 64) mine += partial[g];
    sums[tid] = mine;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (tid == 0) {
        int t = 0;
        for (uint k = 0; k < 64; k++) t += sums[k];
        total[0] = t;
    }
}
"""


def test_last_threadgroup_sums_published_partials(run, rng):
    groups = int(rng.integers(40, 120))
    x = ints(rng, groups * TG, -1000, 1000)
    r = run(LAST_GROUP_SUM_SRC, {"x": x, "partial": garbage(rng, groups, np.int32),
                                 "arrived": np.zeros(1, np.uint32), "total": garbage(rng, 1, np.int32)},
            ["partial", "arrived", "total"], threadgroups=groups, threads=TG)
    exact(r["partial"], x.reshape(groups, TG).astype(np.int64).sum(axis=1).astype(np.int32),
          "each threadgroup's partial sum")
    exact(r["arrived"], np.array([groups], np.uint32), "threadgroups counted")
    exact(r["total"], np.array([int(x.astype(np.int64).sum())], np.int32), "total of the last threadgroup")


# every order and scope, in template code and through variables' types: the values
# exchanged through threadgroup memory and a volatile coherent(system) device buffer must
# come through each fence unchanged
SCOPES_SRC = HEADER + """
constexpr constant thread_scope system_scope = static_cast<thread_scope>(__METAL_MEMORY_SCOPE_SYSTEM__);

template <memory_order order, thread_scope scope>
int fenced_swap(threadgroup int* tg, uint tid, int v) {
    tg[tid] = v;
    atomic_thread_fence(mem_flags::mem_threadgroup, order, scope);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    int other = tg[tid ^ 1u];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    return other;
}

kernel void k(device const int* x [[buffer(0)]], volatile coherent(system) device int* out [[buffer(1)]],
              uint tid [[thread_index_in_threadgroup]], uint i [[thread_position_in_grid]]) {
    threadgroup int tg[64];
    int v = x[i];
    v = fenced_swap<memory_order_relaxed, thread_scope_simdgroup>(tg, tid, v) * 3 + 1;
    v = fenced_swap<memory_order_acquire, thread_scope_thread>(tg, tid, v) * 3 + 1;
    v = fenced_swap<memory_order_seq_cst, thread_scope_simdgroup>(tg, tid, v) * 3 + 1;
    v = fenced_swap<memory_order_release, thread_scope_threadgroup>(tg, tid, v) * 3 + 1;
    v = fenced_swap<memory_order_acq_rel, thread_scope_device>(tg, tid, v) * 3 + 1;
    v = fenced_swap<memory_order_seq_cst, system_scope>(tg, tid, v) * 3 + 1;
    out[i] = v;
    atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, system_scope);
}
"""


def test_every_order_and_scope_passes_values_through(run, rng):
    groups = int(rng.integers(3, 9))
    x = ints(rng, groups * TG, -1000, 1000)
    r = run(SCOPES_SRC, {"x": x, "out": garbage(rng, groups * TG, np.int32)}, ["out"],
            threadgroups=groups, threads=TG)
    want = x.astype(np.int64)
    idx = np.arange(groups * TG)
    for _ in range(6):
        want = want[idx ^ 1] * 3 + 1
    exact(r["out"], want.astype(np.int32), "values after six fenced exchanges")
