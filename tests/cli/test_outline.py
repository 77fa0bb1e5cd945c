"""Large kernels: the cpu backend outlines their large statements, runs of statements and
threadgroup-level statements into functions of their own (src/cpu/emit_outline.c), so that
gcc's superlinear passes see small functions. The generated C is checked for that shape,
and the kernel's results against numpy from fresh random inputs: the outlined code must
compute what the inline code did (masks, uniform scalars copied in and out, values that
cross a barrier, a break that leaves a loop from inside it)."""
import numpy as np

from .helpers import BACKEND

RNG = np.random.default_rng()
STEPS = 100  # steps per stretch: the kernel is above the size from which kernels are outlined


def step_in_loop(k):
    return (f"        if (((v >> {k % 13}u) & 1u) != 0u) {{ acc = acc * 3u + v; }}\n"
            f"        else {{ acc = (acc ^ (v + {k}u)) + u; }}\n")


def source():
    before = "".join(f"    u = u * 5u + {k}u;\n    acc = acc + (u >> {k % 7}u);\n" for k in range(STEPS))
    loop = "".join(step_in_loop(k) for k in range(STEPS))
    after = "".join(f"    if (((other + {k}u) & 3u) == 1u) {{ acc = acc + other * {k}u; }} else {{ acc = acc ^ {k}u; }}\n"
                    for k in range(STEPS))
    return f"""
#include <metal_stdlib>
using namespace metal;
kernel void big(device const uint *x [[buffer(0)]], device uint *out [[buffer(1)]],
                constant uint &n [[buffer(2)]], uint gid [[thread_position_in_grid]],
                uint lid [[thread_index_in_threadgroup]], uint tgsize [[threads_per_threadgroup]]) {{
    threadgroup uint shared[64];
    uint acc = gid;
    uint u = n * 3u;
{before}    for (uint r = 0; r < 3u; r++) {{
        uint v = x[(gid * 7u + r) % n];
{loop}        if (acc % 5u == 2u) break;
    }}
    shared[lid] = acc;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint other = shared[(lid + 1u) % tgsize];
{after}    out[gid] = acc + other;
}}
"""


def reference(x, n, threads, tg):
    u32 = np.uint32
    gid = np.arange(threads, dtype=u32)
    acc = gid.copy()
    u = u32(n * 3)
    with np.errstate(over="ignore"):
        for k in range(STEPS):
            u = u32(u * u32(5) + u32(k))
            acc = acc + (u >> u32(k % 7))
        alive = np.ones(threads, bool)
        for r in range(3):
            v = x[(gid * u32(7) + u32(r)) % u32(n)]
            for k in range(STEPS):
                bit = ((v >> u32(k % 13)) & u32(1)) != 0
                new = np.where(bit, acc * u32(3) + v, (acc ^ (v + u32(k))) + u)
                acc = np.where(alive, new, acc)
            alive &= ~(acc % u32(5) == 2)
        lid = gid % u32(tg)
        other = acc[gid - lid + (lid + u32(1)) % u32(tg)]
        for k in range(STEPS):
            acc = np.where(((other + u32(k)) & u32(3)) == 1, acc + other * u32(k), acc ^ u32(k))
        return acc + other


def test_large_kernel_is_outlined_and_computes_the_same(enigma, cpu, tmp_path):
    src = tmp_path / "big.metal"
    src.write_text(source())
    c = enigma("compile", src, "-k", "big", "--emit", "c")
    assert c.returncode == 0, c.stderr
    parts = c.stdout.count("static __attribute__((noinline)) void enk_kernel_0_part")
    assert parts >= 3, f"{parts} outlined functions"
    kernel = c.stdout[c.stdout.index("void enk_kernel_0(const enk_group *g) {"):]
    assert kernel.count("\n") < 400, "the kernel function itself stays small"
    assert "enk_kernel_0_part" in kernel, "the kernel calls the outlined functions"

    threads, tg = 256, 64
    n = int(RNG.integers(300, 2000))
    x = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    np.save(tmp_path / "x.npy", x)
    r = enigma("run", src, "-k", "big", "--backend", BACKEND, "--grid", threads, "--threads", tg,
               f"x=@{tmp_path / 'x.npy'}", f"out=zeros:{threads}", f"n={n}",
               "-o", f"out={tmp_path / 'out.npy'}", timeout=300)
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), reference(x, n, threads, tg))


def test_small_kernel_keeps_one_function(enigma, cpu, tmp_path):
    src = tmp_path / "small.metal"
    src.write_text("kernel void add(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) "
                   "{ a[i] = a[i] + 1.0f; }\n")
    c = enigma("compile", src, "--emit", "c")
    assert c.returncode == 0, c.stderr
    assert "noinline" not in c.stdout
