"""`enigma compile` of a library of many kernels, built in batches (several kernels to one
C compiler or NVRTC run): every kernel is counted, a kernel the backend refuses inside a
batch is named with the backend's reason while the others of its batch still build, the
same build again comes from the cache, and --batch 1 builds each kernel alone. A kernel's
pipeline made later (`enigma run`) finds the kernel in its batch through the cache's alias
entries instead of compiling it again.

The refusal comes from a C compiler that refuses any file holding one kernel (the
generated C names each kernel in a comment) and is cc otherwise.
"""
import os
import re
import subprocess

import numpy as np
import pytest

from .helpers import EXAMPLES

KERNELS = 24
RNG = np.random.default_rng()


def _source(tmp_path):
    """KERNELS kernels k_0 ... k_23, each scaling by its own factor"""
    text = "".join("kernel void k_%d(device float* a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                   "    a[i] = a[i] * %d.0f + 1.0f;\n}\n" % (k, k + 2) for k in range(KERNELS))
    src = tmp_path / "many.metal"
    src.write_text(text)
    return src


def _refusing_cc(tmp_path):
    cc = tmp_path / "refusing-cc"
    cc.write_text("#!/bin/sh\n"
                  "for a in \"$@\"; do case $a in *.c) if grep -q \"kernel $REFUSE \" \"$a\"; then\n"
                  "  echo \"$a:1:1: error: $REFUSE is refused here\"; exit 1; fi;; esac; done\n"
                  "exec cc \"$@\"\n")
    cc.chmod(0o700)
    return cc


def _compile(enigma, *args, **env):
    return subprocess.run([str(enigma.path), "compile", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **env})


def _cache_entries(cache, suffix=".so"):
    return len([p for p in cache.iterdir() if p.name.endswith(suffix) and not p.name.startswith("tmp-")])


def test_a_refused_kernel_in_a_batch_is_named(enigma, cpu, tmp_path):
    src, cache = _source(tmp_path), tmp_path / "cache"
    r = _compile(enigma, src, "--backend", "cpu", "-j", 2, ENIGMA_CC=str(_refusing_cc(tmp_path)), REFUSE="k_13",
                 ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 3, (r.stdout, r.stderr)
    failures = [line for line in r.stderr.splitlines() if line.startswith("enigma: kernel ")]
    assert len(failures) == 1 and failures[0].startswith("enigma: kernel k_13: "), r.stderr
    assert "k_13 is refused here" in r.stderr
    m = re.search(r"cpu: (\d+) of (\d+) kernels built in [\d.]+ s \(2 at a time, (\d+) batches\)", r.stdout)
    assert m, r.stdout
    assert (int(m.group(1)), int(m.group(2))) == (KERNELS - 1, KERNELS)
    # batched: 24 kernels, two jobs, so batches of 3 (enigma_library_plan_batches)
    assert int(m.group(3)) == 8


def test_batched_build_comes_from_the_cache(enigma, cpu, tmp_path):
    src, cache = _source(tmp_path), tmp_path / "cache"
    r = _compile(enigma, src, "--backend", "cpu", "-j", 2, ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0, r.stderr
    assert "cpu: %d of %d kernels built" % (KERNELS, KERNELS) in r.stdout
    assert _cache_entries(cache) == 8  # one program a batch
    r = _compile(enigma, src, "--backend", "cpu", "-j", 2, ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and "cpu: %d of %d kernels built" % (KERNELS, KERNELS) in r.stdout
    assert _cache_entries(cache) == 8
    # each kernel alone leads to its batch, and so does each batch's inputs (src/runtime/input_key.c)
    assert _cache_entries(cache, ".alias") == KERNELS + 8
    # each kernel alone, as their pipelines build them: found in the batches, nothing built
    r = _compile(enigma, src, "--backend", "cpu", "-j", 2, "--batch", 1, ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and "(2 at a time, %d batches)" % KERNELS in r.stdout, r.stdout
    assert _cache_entries(cache) == 8
    # other flags: another key, so each kernel alone is built (a program each)
    r = _compile(enigma, src, "--backend", "cpu", "-j", 2, "--batch", 1, "--backend-flags", "-O1",
                 ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and _cache_entries(cache) == 8 + KERNELS, r.stdout
    # -k names some: batched too, in the order named
    ks = []
    for k in (3, 1, 2, 20):
        ks += ["-k", "k_%d" % k]
    r = _compile(enigma, src, "--backend", "cpu", "-j", 1, *ks, ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and "cpu: 4 of 4 kernels built in" in r.stdout and "1 batch)" in r.stdout, r.stdout


def test_batched_nvrtc_build(enigma, frontend, tmp_path):
    r = _compile(enigma, EXAMPLES / "vector_add.metal", "--backend", "cuda")
    if r.returncode != 0 or "NVRTC" not in r.stdout:
        pytest.skip("NVRTC is not installed here")
    src, cache = _source(tmp_path), tmp_path / "cache"
    r = _compile(enigma, src, "--backend", "cuda", "-j", 2, "--batch", 5, ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0, r.stderr
    # at most 5 kernels, and 3 where two jobs would get few batches
    assert "cuda: %d of %d kernels built by NVRTC in" % (KERNELS, KERNELS) in r.stdout and "8 batches" in r.stdout
    assert _cache_entries(cache, ".cubin") == 8 and _cache_entries(cache, ".alias") == KERNELS
    # each kernel alone, as its pipeline builds it: found in its batch's cubin, nothing compiled
    r = _compile(enigma, src, "--backend", "cuda", "-j", 2, "--batch", 1, ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and "%d batches" % KERNELS in r.stdout, (r.stdout, r.stderr)
    assert _cache_entries(cache, ".cubin") == 8


def test_batch_needs_a_count(enigma, tmp_path):
    r = _compile(enigma, tmp_path / "k.metal", "--batch", 0)
    assert r.returncode == 1 and "--batch needs a number of kernels" in r.stderr


def test_backend_flags_reach_the_c_compiler(enigma, cpu, tmp_path):
    """--backend-flags replaces the C compiler's flags: a compiler that records its flags sees them
    (and a build with other flags is another cache entry, not the default build's)"""
    src, cache, seen = _source(tmp_path), tmp_path / "cache", tmp_path / "flags.txt"
    cc = tmp_path / "recording-cc"
    cc.write_text("#!/bin/sh\necho \"$@\" >>\"$SEEN\"\nexec cc \"$@\"\n")
    cc.chmod(0o700)
    r = _compile(enigma, src, "--backend", "cpu", "-j", 1, "--backend-flags", "-O1 -fno-tree-vectorize",
                 ENIGMA_CC=str(cc), SEEN=str(seen), ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "cpu: %d of %d kernels built" % (KERNELS, KERNELS) in r.stdout
    builds = lambda: [line for line in seen.read_text().splitlines() if "-shared" in line]  # not --version
    runs = builds()
    assert runs and all("-O1 -fno-tree-vectorize" in run and "-O2" not in run for run in runs), runs
    r = _compile(enigma, src, "--backend", "cpu", "-j", 1, ENIGMA_CC=str(cc), SEEN=str(seen),
                 ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and any("-O2" in run for run in builds()[len(runs):])


def test_backend_flags_needs_its_value(enigma, tmp_path):
    r = _compile(enigma, _source(tmp_path), "--backend-flags")
    assert r.returncode == 1 and "--backend-flags needs the flags" in r.stderr, r.stderr


def _recording_cc(tmp_path):
    cc = tmp_path / "recording-cc"
    cc.write_text("#!/bin/sh\necho \"$@\" >>\"$SEEN\"\nexec cc \"$@\"\n")
    cc.chmod(0o700)
    return cc


def _run_kernel(enigma, src, k, tmp_path, **env):
    """runs k_k over fresh random data; checks a = a * (k + 2) + 1"""
    a = RNG.standard_normal(100).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    r = subprocess.run([str(enigma.path), "run", str(src), "-k", "k_%d" % k, "--backend", "cpu", "--grid", "100",
                        "--threads", "32", "a=@%s" % (tmp_path / "a.npy"), "-o", "a=%s" % (tmp_path / "out.npy")],
                       capture_output=True, text=True, timeout=600, env={**os.environ, **env})
    assert r.returncode == 0, r.stderr
    want = a.astype(np.float64) * (k + 2) + 1
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), want, rtol=1e-6)


def test_a_pipeline_after_a_batched_build_compiles_nothing(enigma, cpu, tmp_path):
    """`enigma compile` warms the cache for a later `enigma run` of any one kernel: the run
    finds the kernel in its batch (an alias entry) and starts no C compiler; an alias that
    names another kernel is not followed: that kernel is built alone and still right"""
    src, cache, seen = _source(tmp_path), tmp_path / "cache", tmp_path / "flags.txt"
    env = dict(ENIGMA_CC=str(_recording_cc(tmp_path)), SEEN=str(seen), ENIGMA_CACHE_DIR=str(cache))
    r = _compile(enigma, src, "--backend", "cpu", "-j", 2, **env)
    assert r.returncode == 0, r.stderr
    builds = lambda: [line for line in seen.read_text().splitlines() if "-shared" in line]  # not --version
    before = len(builds())
    assert before == 8
    for k in (5, 0, KERNELS - 1):
        _run_kernel(enigma, src, k, tmp_path, **env)
    assert len(builds()) == before
    # a corrupted alias: k_7's entry now claims to be k_8's (same batch, other index)
    aliases = [p for p in cache.iterdir() if p.name.endswith(".alias")]
    k7 = [p for p in aliases if p.read_text().split()[2] == "k_7"]
    assert len(k7) == 1
    key, index, _ = k7[0].read_text().split()
    k7[0].write_text("%s %d k_8\n" % (key, int(index) + 1))
    _run_kernel(enigma, src, 7, tmp_path, **env)
    assert len(builds()) == before + 1


def test_native_builds_are_keyed_by_the_host_cpu(enigma, cpu, tmp_path):
    """-march=native code runs only on CPUs like the one it was built on, so a cache folder
    shared by machines of different CPUs must not hand one the other's program: the host
    CPU's identity is part of the key when the flags say native, and only then.
    ENIGMA_CPUINFO points the backend at another CPU's /proc/cpuinfo."""
    src, cache = tmp_path / "one.metal", tmp_path / "cache"
    src.write_text("kernel void twice(device float* a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                   "    a[i] = a[i] * 2.0f;\n}\n")
    other = tmp_path / "other-cpuinfo"
    other.write_text("processor\t: 0\nvendor_id\t: OtherVendor\nmodel name\t: Some Other CPU\n"
                     "flags\t\t: fpu sse sse2\n\nprocessor\t: 1\n")
    here = _compile(enigma, src, ENIGMA_CACHE_DIR=str(cache))
    assert here.returncode == 0 and _cache_entries(cache) == 1, here.stderr
    r = _compile(enigma, src, ENIGMA_CACHE_DIR=str(cache), ENIGMA_CPUINFO=str(other))
    assert r.returncode == 0 and _cache_entries(cache) == 2, r.stderr  # another CPU: built again
    r = _compile(enigma, src, ENIGMA_CACHE_DIR=str(cache), ENIGMA_CPUINFO=str(other))
    assert r.returncode == 0 and _cache_entries(cache) == 2, r.stderr  # that CPU's entry is found
    r = _compile(enigma, src, ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and _cache_entries(cache) == 2, r.stderr  # and so is this one's
    # flags that do not tune for the host: one program for every CPU
    r = _compile(enigma, src, "--backend-flags", "-O2", ENIGMA_CACHE_DIR=str(cache))
    assert r.returncode == 0 and _cache_entries(cache) == 3, r.stderr
    r = _compile(enigma, src, "--backend-flags", "-O2", ENIGMA_CACHE_DIR=str(cache), ENIGMA_CPUINFO=str(other))
    assert r.returncode == 0 and _cache_entries(cache) == 3, r.stderr
