"""The CLI's help, usage errors (exit 1), info, and compile errors (exit 2)."""
import re

import pytest


def test_help_lists_commands(enigma):
    r = enigma("--help")
    assert r.returncode == 0
    for cmd in ("run", "compile", "info"):
        assert re.search(rf"^\s+{cmd}\b", r.stdout, re.M), r.stdout
    assert "exit codes" in r.stdout


@pytest.mark.parametrize("cmd,must_have", [
    ("run", ["--threadgroups", "--grid", "--threads", "--tgmem", "zeros:COUNT", "@FILE.npy", "--print",
             "--repeat", "--time", "--check", "-o NAME=FILE"]),
    ("compile", ["--emit ir|c|cuda", "--backend", "-o FILE"]),
    ("info", ["backends"]),
])
def test_command_help(enigma, cmd, must_have):
    r = enigma(cmd, "--help")
    assert r.returncode == 0, r.stderr
    for s in must_have:
        assert s in r.stdout, (s, r.stdout)


@pytest.mark.parametrize("args,message", [
    ([], "usage: enigma"),
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["run"], "no FILE.metal"),
    (["run", "k.metal", "--threads", "64"], "--threadgroups X[,Y[,Z]] or --grid"),
    (["run", "k.metal", "--grid", "64"], "--threads"),
    (["run", "k.metal", "--grid", "0", "--threads", "64"], "--grid '0'"),
    (["run", "k.metal", "--grid", "4,x", "--threads", "4"], "--grid '4,x'"),
    (["run", "k.metal", "--grid", "4", "--threadgroups", "4", "--threads", "4"], "one of --threadgroups and --grid"),
    (["run", "k.metal", "--grid", "4", "--threads", "4", "--bogus"], "unknown option '--bogus'"),
    (["run", "k.metal", "--grid", "4", "--threads", "4", "--tgmem", "x=4"], "--tgmem 'x=4'"),
    (["run", "k.metal", "--grid", "4", "--threads", "4", "--repeat", "0"], "--repeat '0'"),
    (["run", "k.metal", "--grid", "4", "--threads", "4", "-o", "out"], "-o 'out'"),
    (["run", "k.metal", "--grid", "4", "--threads", "4", "-k"], "-k needs a value"),
    (["compile"], "no FILE.metal"),
    (["compile", "k.metal", "--emit", "asm"], "unknown --emit 'asm'"),
    (["compile", "k.metal", "--backend", "tpu"], "unknown backend 'tpu'"),
    (["compile", "k.metal", "--emit", "c", "--backend", "cuda"], "--emit c is the cpu backend's code"),
    (["compile", "k.metal", "-o", "x.txt"], "-o needs --emit"),
    (["info", "extra"], "unexpected argument 'extra'"),
])
def test_usage_errors_exit_1(enigma, args, message):
    r = enigma(*args)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert message in r.stderr, r.stderr


def test_unknown_backend_is_a_usage_error(enigma, tmp_path):
    src = tmp_path / "k.metal"
    src.write_text("kernel void k(device float* a [[buffer(0)]]) {}\n")
    r = enigma("run", src, "--backend", "tpu", "--grid", "1", "--threads", "1", "a=zeros:1")
    assert r.returncode == 1
    assert "unknown backend 'tpu' (expected cpu, cuda or auto)" in r.stderr


def test_missing_file_is_a_usage_error(enigma, tmp_path):
    r = enigma("compile", tmp_path / "nope.metal", "--emit", "ir")
    assert r.returncode == 1
    assert "nope.metal: No such file or directory" in r.stderr


def test_info_lists_both_backends(enigma):
    r = enigma("info")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    cpu = [l for l in lines if l.startswith("cpu:")]
    cuda = [l for l in lines if l.startswith("cuda:")]
    assert len(cpu) == 1 and len(cuda) == 1, r.stdout
    if "unavailable" in cuda[0]:
        # the reason follows the library's documented prefix
        assert "cuda backend unavailable: " in cuda[0]
    else:
        assert "max threads per threadgroup" in r.stdout
    if "unavailable" not in cpu[0]:
        assert re.search(r"max threadgroup memory\s+32768 bytes", r.stdout), r.stdout
        assert re.search(r"simd width\s+32", r.stdout), r.stdout


BAD = ("kernel void k(device float* a [[buffer(0)]],\n"
       "              uint i [[thread_position_in_grid]]) {\n"
       "    a[i] = undeclared_name;\n"
       "}\n")


def check_compile_error(r):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert re.search(r"bad\.metal:3:\d+: error: .*undeclared_name", r.stderr), r.stderr
    assert "    a[i] = undeclared_name;" in r.stderr and "^" in r.stderr  # the line and a caret


def test_compile_error_exits_2_with_position(enigma, frontend, tmp_path):
    src = tmp_path / "bad.metal"
    src.write_text(BAD)
    check_compile_error(enigma("compile", src, "--emit", "ir"))


def test_run_compile_error_exits_2(enigma, cpu, tmp_path):
    src = tmp_path / "bad.metal"
    src.write_text(BAD)
    check_compile_error(enigma("run", src, "--grid", "1", "--threads", "1", "a=zeros:1"))


def test_emit_ir_names_the_kernel(enigma, frontend, tmp_path):
    src = tmp_path / "k.metal"
    src.write_text("kernel void add_one(device float* a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                   "    a[i] = a[i] + 1.0f;\n}\n")
    r = enigma("compile", src, "--emit", "ir")
    assert r.returncode == 0, r.stderr
    assert "add_one" in r.stdout
    out = tmp_path / "k.ir"
    r2 = enigma("compile", src, "--emit", "ir", "-o", out)
    assert r2.returncode == 0, r2.stderr
    assert out.read_text() == r.stdout


def test_defines_and_includes_pass_through(enigma, frontend, tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "factor.h").write_text("#define FACTOR_FROM_HEADER 1\n")
    src = tmp_path / "k.metal"
    src.write_text('#include "factor.h"\n'
                   "#ifndef MUST_BE_DEFINED\n#error MUST_BE_DEFINED is missing\n#endif\n"
                   "kernel void k(device float* a [[buffer(0)]]) { a[0] = FACTOR_FROM_HEADER; }\n")
    assert enigma("compile", src, "--emit", "ir").returncode == 2
    r = enigma("compile", src, "--emit", "ir", "-I", inc, "-DMUST_BE_DEFINED")
    assert r.returncode == 0, r.stderr
    r = enigma("compile", src, "--emit", "ir", f"-I{inc}", "-D", "MUST_BE_DEFINED=1")
    assert r.returncode == 0, r.stderr
