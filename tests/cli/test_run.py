"""`enigma run`: bindings of every VALUE form, .npy in and out, --print, --repeat,
--time, and the errors that name the thing at fault. Results are checked against
references computed here with numpy from fresh random inputs."""
import re

import numpy as np
import pytest

from .helpers import BACKEND, EXAMPLES, printed

VECTOR_ADD = EXAMPLES / "vector_add.metal"
RNG = np.random.default_rng()


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r


def test_vector_add_npy_in_and_out(enigma, cpu, tmp_path):
    n = int(RNG.integers(500, 3000))
    a = RNG.standard_normal(n).astype(np.float32)
    b = RNG.standard_normal(n).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    ok(enigma("run", VECTOR_ADD, "--backend", BACKEND, "--grid", n, "--threads", 256,
              f"a=@{tmp_path / 'a.npy'}", f"b=@{tmp_path / 'b.npy'}", f"out=zeros:{n}", f"n={n}",
              "-o", f"out={tmp_path / 'out.npy'}", "-o", f"b={tmp_path / 'b_out.npy'}"))
    out = np.load(tmp_path / "out.npy")
    assert out.dtype == np.float32 and out.shape == (n,)
    ref = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(out, ref)
    # an input written back keeps its dtype and shape
    np.testing.assert_array_equal(np.load(tmp_path / "b_out.npy"), b)


def test_bindings_by_index_numbers_and_raw_files(enigma, cpu, tmp_path):
    a = RNG.uniform(-10, 10, 3).astype(np.float32)
    (tmp_path / "b.bin").write_bytes(np.array([0.5, 0.25, -4.0], np.float32).tobytes())
    r = ok(enigma("run", VECTOR_ADD, "--backend", BACKEND, "--threadgroups", 1, "--threads", 4,
                  "0=" + ",".join(repr(float(x)) for x in a), f"1=@{tmp_path / 'b.bin'}", "2=zeros:3", "3=3",
                  "--print", "out", "-o", f"out={tmp_path / 'out.raw'}"))
    ref = a.astype(np.float64) + np.array([0.5, 0.25, -4.0])
    np.testing.assert_allclose(printed(r.stdout, "out"), ref, rtol=1e-6)
    raw = np.frombuffer((tmp_path / "out.raw").read_bytes(), np.float32)
    np.testing.assert_allclose(raw, ref, rtol=1e-6)


def test_print_limits_elements(enigma, cpu):
    r = ok(enigma("run", VECTOR_ADD, "--backend", BACKEND, "--grid", 40, "--threads", 32,
                  "a=" + ",".join(["1"] * 40), "b=" + ",".join(["2"] * 40), "out=zeros:40", "n=40",
                  "--print", "out:5", "--print", "n"))
    line = [l for l in r.stdout.splitlines() if l.startswith("out = [")][0]
    assert line == "out = [3, 3, 3, 3, 3, ... (35 more)]", line
    assert "n = [40]" in r.stdout


def test_time_and_repeat(enigma, cpu, tmp_path):
    # seed 003's reduction adds into its output atomically: --repeat 3 triples it
    n = 256 * 4
    x = RNG.integers(-1000, 1000, n).astype(np.int32)
    np.save(tmp_path / "x.npy", x)
    r = ok(enigma("run", EXAMPLES / "seed003_reduce.metal", "--backend", BACKEND, "--threadgroups", 4,
                  "--threads", 256, "--tgmem", "0=1024", f"input=@{tmp_path / 'x.npy'}", "output=zeros:1",
                  "--repeat", 3, "--time", "--print", "output"))
    assert printed(r.stdout, "output") == [3 * int(x.astype(np.int64).sum())]
    assert re.search(r"^compile: [0-9.]+ ms$", r.stdout, re.M), r.stdout
    assert re.search(r"^dispatch: [0-9.]+ us mean, [0-9.]+ us min over 3 runs", r.stdout, re.M), r.stdout


def test_half_values_and_npy(enigma, cpu, tmp_path):
    n = 1000
    h = RNG.uniform(-100, 100, n).astype(np.float16)
    np.save(tmp_path / "h.npy", h)
    ok(enigma("run", EXAMPLES / "seed004_scale.metal", "-k", "safe_scale", "--backend", BACKEND, "--grid", 1024,
              "--threads", 256, f"data=@{tmp_path / 'h.npy'}", "count=1000", "-o", f"data={tmp_path / 'o.npy'}"))
    out = np.load(tmp_path / "o.npy")
    assert out.dtype == np.float16 and out.shape == (n,)
    np.testing.assert_array_equal(out, (h.astype(np.float64) * 2).astype(np.float16))
    r = ok(enigma("run", EXAMPLES / "seed004_scale.metal", "-k", "scale", "--backend", BACKEND, "--grid", 3,
                  "--threads", 3, "data=1.5,-2,0.333", "factor=2", "--print", "data"))
    assert printed(r.stdout, "data") == pytest.approx([3.0, -4.0, 0.666], rel=1e-3)


def test_bfloat_from_uint16_npy(enigma, cpu, tmp_path):
    src = tmp_path / "bf.metal"
    src.write_text("kernel void twice(device const bfloat* x [[buffer(0)]], device float* y [[buffer(1)]],\n"
                   "                  uint i [[thread_position_in_grid]]) { y[i] = float(x[i]) * 2.0f; }\n")
    f = RNG.uniform(-50, 50, 64).astype(np.float32)
    bits = (f.view(np.uint32) >> 16).astype(np.uint16)  # truncation: exactly representable bfloats
    np.save(tmp_path / "x.npy", bits)
    ok(enigma("run", src, "--backend", BACKEND, "--grid", 64, "--threads", 32, f"x=@{tmp_path / 'x.npy'}",
              "y=zeros:64", "-o", f"y={tmp_path / 'y.npy'}", "-o", f"x={tmp_path / 'x_out.npy'}"))
    want = (bits.astype(np.uint32) << 16).view(np.float32) * 2
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), want)
    np.testing.assert_array_equal(np.load(tmp_path / "x_out.npy"), bits)
    # typed numbers round to nearest bfloat
    r = ok(enigma("run", src, "--backend", BACKEND, "--grid", 2, "--threads", 2, "x=1.5,3.0078125",
                  "y=zeros:2", "--print", "y"))
    assert printed(r.stdout, "y") == [3.0, 6.0]  # 3.0078125 is nearer 3.0 than 3.015625 in bfloat


def test_vector_element_numbers(enigma, cpu, tmp_path):
    r = ok(enigma("run", EXAMPLES / "seed004_scale.metal", "-k", "scale_vec4", "--backend", BACKEND,
                  "--threadgroups", 1, "--threads", 2, "data=1,2,3,4,5,6,7,8", "factor=0.5", "--print", "data"))
    line = [l for l in r.stdout.splitlines() if l.startswith("data = [")][0]
    assert line == "data = [(0.5, 1, 1.5, 2), (2.5, 3, 3.5, 4)]", line
    r = enigma("run", EXAMPLES / "seed004_scale.metal", "-k", "scale_vec4", "--backend", BACKEND,
               "--threadgroups", 1, "--threads", 2, "data=1,2,3", "factor=0.5")
    assert r.returncode == 1 and "4 lanes each, but 3 numbers" in r.stderr, r.stderr


AB = ["a=1,2,3,4", "b=1,2,3,4"]


@pytest.mark.parametrize("threads,bindings,code,message", [
    # a parameter with no value
    (4, AB + ["n=4"], 1,
     "parameter 'out' ([[buffer(2)]], device float*) of kernel 'vector_add' has no value: give out=VALUE"),
    # a binding to a name that is not a parameter
    (4, AB + ["out=zeros:4", "n=4", "bogus=1"], 1,
     "no parameter named 'bogus' in kernel 'vector_add' (parameters: a, b, out, n)"),
    (4, AB + ["out=zeros:4", "n=4", "tid=1"], 1, "parameter 'tid' is the attribute [[thread_position_in_grid]]"),
    (4, AB + ["out=zeros:4", "n=4", "7=1"], 1, "kernel 'vector_add' has no [[buffer(7)]] parameter"),
    (4, AB + ["out=zeros:4", "n=4", "0=2"], 1, "the parameter is already bound by a"),
    # values that do not fit the parameter
    (4, AB + ["out=zeros:4", "n=1,2"], 1,
     "parameter 'n' is a reference to one uint (1 number), but 2 numbers were given"),
    (4, AB + ["out=zeros:4", "n=-3"], 1, "-3 is out of range for uint"),
    (4, AB + ["out=zeros:4", "n=1.5"], 1, "'1.5' is not an integer (for uint)"),
    (4, AB + ["out=zeros:4", "n=zeros:2"], 1, "so zeros:1 is the only count"),
    (4, AB + ["out=zeros:0", "n=4"], 1, "zeros:COUNT needs a COUNT of at least 1"),
    (4, AB + ["out=x", "n=4"], 1, "'x' is not a number (for float)"),
    (4, AB + ["out=zeros:4", "n=4", "--print", "nothing"], 1, "no parameter named 'nothing'"),
    # geometry over a limit: the library refuses the dispatch (a runtime error)
    (2048, AB + ["out=zeros:4", "n=4"], 3,
     "threads per threadgroup 2048 (2048x1x1) exceeds the limit of 1024 for kernel 'vector_add'"),
])
def test_errors_name_the_thing_at_fault(enigma, cpu, threads, bindings, code, message):
    r = enigma("run", VECTOR_ADD, "--backend", BACKEND, "--grid", 4, "--threads", threads, *bindings)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert message in r.stderr, r.stderr


def test_file_size_errors(enigma, cpu, tmp_path):
    (tmp_path / "odd.bin").write_bytes(b"\0" * 10)
    r = enigma("run", VECTOR_ADD, "--backend", BACKEND, "--grid", 4, "--threads", 4, f"a=@{tmp_path / 'odd.bin'}",
               "b=zeros:4", "out=zeros:4", "n=4")
    assert r.returncode == 1
    assert "odd.bin has 10 bytes, which is not a whole number of float elements (4 bytes each) for parameter 'a'" in r.stderr
    (tmp_path / "n.bin").write_bytes(b"\0" * 8)
    r = enigma("run", VECTOR_ADD, "--backend", BACKEND, "--grid", 4, "--threads", 4, "a=zeros:4", "b=zeros:4",
               "out=zeros:4", f"n=@{tmp_path / 'n.bin'}")
    assert r.returncode == 1
    assert "n.bin has 8 bytes, but parameter 'n' is a reference to one uint (4 bytes)" in r.stderr
    r = enigma("run", VECTOR_ADD, "--backend", BACKEND, "--grid", 4, "--threads", 4, f"a=@{tmp_path / 'none.bin'}",
               "b=zeros:4", "out=zeros:4", "n=4")
    assert r.returncode == 1 and "cannot read" in r.stderr and "none.bin" in r.stderr


def test_npy_errors(enigma, cpu, tmp_path):
    np.save(tmp_path / "f64.npy", np.zeros(4, np.float64))
    np.save(tmp_path / "i32.npy", np.zeros(4, np.int32))
    np.save(tmp_path / "fortran.npy", np.asfortranarray(np.zeros((2, 2), np.float32)))
    (tmp_path / "trunc.npy").write_bytes((tmp_path / "i32.npy").read_bytes()[:-3])
    cases = [("f64.npy", "dtype '<f8' is not supported"),
             ("i32.npy", "i32.npy has dtype '<i4', but parameter 'a' holds float (dtype '<f4')"),
             ("fortran.npy", "Fortran-order arrays are not supported"),
             ("trunc.npy", "truncated")]
    for name, message in cases:
        r = enigma("run", VECTOR_ADD, "--backend", BACKEND, "--grid", 4, "--threads", 4, f"a=@{tmp_path / name}",
                   "b=zeros:4", "out=zeros:4", "n=4")
        assert r.returncode == 1, (name, r.stderr)
        assert message in r.stderr, (name, r.stderr)


def test_several_kernels_need_k(enigma, cpu):
    r = enigma("run", EXAMPLES / "seed004_scale.metal", "--backend", BACKEND, "--grid", 4, "--threads", 4,
               "data=zeros:4", "factor=2")
    assert r.returncode == 1
    assert "kernels: scale, scale_vec4, safe_scale" in r.stderr, r.stderr
    r = enigma("run", EXAMPLES / "seed004_scale.metal", "-k", "nope", "--backend", BACKEND, "--grid", 4,
               "--threads", 4)
    assert r.returncode == 1 and "no kernel named 'nope'" in r.stderr


def test_dynamic_threadgroup_memory_errors(enigma, cpu):
    if BACKEND != "cpu":
        pytest.skip("the limit of 32 KiB is the cpu device's")
    base = ["run", EXAMPLES / "seed003_reduce.metal", "--backend", BACKEND, "--threadgroups", 1, "--threads", 64,
            "input=zeros:64", "output=zeros:1"]
    r = enigma(*base)
    assert r.returncode == 1
    assert "parameter 'ldata' ([[threadgroup(0)]]) of kernel 'reduce' has no length: give --tgmem 0=BYTES" in r.stderr
    r = enigma(*base, "--tgmem", "0=40960")
    assert r.returncode == 3
    assert "threadgroup memory 40960 bytes (static 0 + [[threadgroup(0)]] 40960) exceeds the device limit of 32768" in r.stderr
    r = enigma(*base, "--tgmem", "3=64")
    assert r.returncode == 1 and "no [[threadgroup(3)]] parameter" in r.stderr
    r = enigma(*base, "--tgmem", "0=256", "ldata=zeros:4")
    assert r.returncode == 1 and "give its length with --tgmem 0=BYTES" in r.stderr


def test_emit_c_and_cuda(enigma, frontend, tmp_path):
    r = enigma("compile", VECTOR_ADD, "--emit", "c")
    if "not built into this enigma" in r.stderr:
        pytest.skip("the cpu backend's emitter is not built yet")
    ok(r)
    assert "vector_add" in r.stdout
    r = enigma("compile", VECTOR_ADD, "--emit", "cuda")
    if "not built into this enigma" in r.stderr:
        pytest.skip("the cuda backend's emitter is not built yet")
    ok(r)
    assert "vector_add" in r.stdout
    # building for cuda needs no GPU: without one, the CUDA C is still generated and checked
    ok(enigma("compile", VECTOR_ADD, "--backend", "cuda"))


def test_compile_builds_for_cpu(enigma, cpu):
    r = ok(enigma("compile", EXAMPLES / "seed004_scale.metal", "--backend", "cpu"))
    assert "3 kernels for cpu: scale scale_vec4 safe_scale" in r.stdout


def test_checked_mode_reports_and_exits_4(enigma, cpu, tmp_path):
    if BACKEND != "cpu":
        pytest.skip("checked mode is the cpu backend's")
    src = tmp_path / "oob.metal"
    src.write_text("kernel void oob(device float* a [[buffer(0)]],\n"
                   "                uint i [[thread_position_in_grid]]) {\n"
                   "    a[i + 1] = 1.0f;\n"
                   "}\n")
    plain = enigma("compile", src, "--emit", "c")
    checked = enigma("compile", src, "--emit", "c", "--check")
    if plain.returncode == 0 and plain.stdout == checked.stdout:
        pytest.skip("the cpu backend does not instrument checked builds yet (its C is the same)")
    r = enigma("run", src, "--backend", BACKEND, "--check", "--grid", 64, "--threads", 64, "a=zeros:64")
    assert r.returncode == 4, (r.returncode, r.stdout, r.stderr)
    assert re.search(r"oob\.metal:3:\d+: error: out-of-bounds: .*\(1 time\)", r.stderr), r.stderr
    assert "checked mode: 1 problem" in r.stderr
    # the same kernel within bounds is clean
    r = enigma("run", src, "--backend", BACKEND, "--check", "--grid", 63, "--threads", 64, "a=zeros:64")
    assert r.returncode == 0, r.stderr


def test_vector_outputs_have_a_lane_axis(enigma, cpu, tmp_path):
    src = tmp_path / "vec.metal"
    src.write_text("kernel void fill(device float4* v4 [[buffer(0)]], device float3* v3 [[buffer(1)]],\n"
                   "                 device int2* i2 [[buffer(2)]], constant float& s [[buffer(3)]],\n"
                   "                 uint i [[thread_position_in_grid]]) {\n"
                   "    v4[i] = float4(s * float(i), 1.0f, 2.0f, 3.0f);\n"
                   "    v3[i] = float3(float(i), s, -s);\n"
                   "    i2[i] = int2(int(i), -int(i));\n"
                   "}\n")
    s = float(np.float32(RNG.uniform(1, 10)))
    ok(enigma("run", src, "--backend", BACKEND, "--grid", 5, "--threads", 5, "v4=zeros:5", "v3=zeros:5",
              "i2=zeros:5", f"s={s!r}", "-o", f"v4={tmp_path / 'v4.npy'}", "-o", f"v3={tmp_path / 'v3.npy'}",
              "-o", f"i2={tmp_path / 'i2.npy'}", "-o", f"s={tmp_path / 's.npy'}"))
    i = np.arange(5)
    v4 = np.load(tmp_path / "v4.npy")
    assert v4.dtype == np.float32 and v4.shape == (5, 4)
    np.testing.assert_allclose(v4, np.stack([np.float32(s) * i, np.ones(5), 2 * np.ones(5), 3 * np.ones(5)], 1))
    v3 = np.load(tmp_path / "v3.npy")  # float3 is 16 bytes in MSL: the padding lane comes along
    assert v3.dtype == np.float32 and v3.shape == (5, 4)
    np.testing.assert_allclose(v3[:, :3], np.stack([i, np.full(5, s), np.full(5, -s)], 1).astype(np.float32))
    i2 = np.load(tmp_path / "i2.npy")
    assert i2.dtype == np.int32 and i2.shape == (5, 2)
    np.testing.assert_array_equal(i2, np.stack([i, -i], 1))
    sv = np.load(tmp_path / "s.npy")  # a reference parameter: one value, a 0-d array
    assert sv.shape == () and sv == np.float32(s)


FUNCTION_CONSTANT = """
constant int mode [[function_constant(5)]];
kernel void k(device float *x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    x[i] = mode == 0 ? x[i] + 1.0f : x[i] * float(mode);
}
"""


def test_constant_sets_a_function_constant_by_name_and_by_index(enigma, cpu, tmp_path):
    src = tmp_path / "fc.metal"
    src.write_text(FUNCTION_CONSTANT)
    x = RNG.standard_normal(37).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    for flag, want in (("mode=0", x.astype(np.float64) + 1), ("5=3", x.astype(np.float64) * 3)):
        ok(enigma("run", src, "--backend", BACKEND, "--grid", 37, "--threads", 8, "--constant", flag,
                  f"x=@{tmp_path / 'x.npy'}", "-o", f"x={tmp_path / 'out.npy'}"))
        np.testing.assert_allclose(np.load(tmp_path / "out.npy"), want, rtol=1e-6)
    r = enigma("run", src, "--backend", BACKEND, "--grid", 37, "--threads", 8, f"x=@{tmp_path / 'x.npy'}")
    assert r.returncode == 2 and "function constant 'mode'" in r.stderr and "--constant mode=VALUE" in r.stderr
    r = enigma("compile", src, "--constant", "mode")
    assert r.returncode == 1 and "expected NAME=VALUE" in r.stderr
