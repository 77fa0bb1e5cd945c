"""Function constants (issue 10): [[function_constant(i)]] values given per compile, by name or
by index, specialise the kernel; a constant tested with is_function_constant_defined is
optional; each set of values is its own library (and cache entry). Runs on the cpu backend,
or on cuda with ENIGMA_TEST_BACKEND=cuda."""

import numpy as np
import pytest

import enigma

# ggml's shape: an op selector and a flag, an optional constant with a default
SOURCE = """
#include <metal_stdlib>
using namespace metal;
constant short op [[function_constant(1300 + 0)]];
constant bool  scaled [[function_constant(1300 + 1)]];
constant float factor [[function_constant(1300 + 2)]];
constant int   offset_in [[function_constant(1300 + 3)]];
constant int   offset = is_function_constant_defined(offset_in) ? offset_in : 0;

kernel void binary(device const float *a [[buffer(0)]], device const float *b [[buffer(1)]],
                   device float *out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    float x = a[i], y = b[i], r = 0.0f;
    if (op == 0) r = x + y;
    if (op == 1) r = x * y;
    if (op == 2) r = max(x, y);
    if (scaled) r *= factor;
    out[i] = r + float(offset);
}
"""

CASES = [
    ({"op": 0, "scaled": False, "factor": 1.0}, lambda x, y: x + y),
    ({"op": 1, "scaled": True, "factor": 0.25}, lambda x, y: 0.25 * (x * y)),
    ({1300: 2, 1301: "true", 1302: -3.5, 1303: 7}, lambda x, y: -3.5 * np.maximum(x, y) + 7),
    (["op=1", "scaled=false", "factor=9", "offset_in=-2"], lambda x, y: x * y - 2),
]


@pytest.mark.parametrize("constants,reference", CASES)
def test_each_specialisation_computes_its_own_op(rt, rng, constants, reference):
    n = int(rng.integers(100, 1000))
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    c = enigma.compile_source(SOURCE, "binary", constants=constants)
    rt.execute(c, inputs=[a, b], out=out, grid=(n,), threads=(64,))
    want = reference(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


def test_dead_branches_are_gone_from_the_generated_code():
    c = enigma.compile_source(SOURCE, "binary", constants={"op": 2, "scaled": False, "factor": 1})
    ir = c.emit("ir")
    assert "r = max<float>(x, y)" in ir
    assert "x + y" not in ir and "x * y" not in ir and "r * " not in ir


def test_a_required_constant_without_value_is_an_error_naming_it():
    with pytest.raises(enigma.CompileError) as e:
        enigma.compile_source(SOURCE, "binary", constants={"op": 1, "scaled": True})
    msg = str(e.value)
    assert "function constant 'factor'" in msg and "--constant factor=VALUE" in msg


def test_a_value_the_type_cannot_hold_is_an_error():
    with pytest.raises(enigma.CompileError) as e:
        enigma.compile_source(SOURCE, "binary", constants={"op": 70000, "scaled": False, "factor": 1})
    assert "'70000' given for function constant 'op' is not a short" in str(e.value)


OPTIONAL = """
#include <metal_stdlib>
using namespace metal;
constant bool has_bias [[function_constant(0)]];
constant bool has_scale [[function_constant(1)]];
kernel void k(device const float *x [[buffer(0)]], device float *out [[buffer(1)]],
              device const float *bias [[buffer(2), function_constant(has_bias)]],
              constant float &scale [[buffer(3), function_constant(has_scale)]],
              uint i [[thread_position_in_grid]]) {
    float v = x[i];
    if (has_bias) v += bias[i];
    if (has_scale) v *= scale;
    out[i] = v;
}
"""


@pytest.mark.parametrize("bias,scale", [(True, False), (False, True), (True, True), (False, False)])
def test_a_parameter_exists_only_when_its_function_constant_is_true(rt, rng, bias, scale):
    n = int(rng.integers(50, 300))
    x = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    s = np.float32(rng.uniform(0.5, 2.0))
    out = np.zeros(n, np.float32)
    c = enigma.compile_source(OPTIONAL, "k", constants={"has_bias": bias, "has_scale": scale})
    args = {"x": x, "out": out}
    if bias:
        args["bias"] = b
    if scale:
        args["scale"] = s
    rt.launch(c, grid=(n,), threads=(32,), **args)  # an absent parameter may not be bound
    want = x.astype(np.float64) + (b if bias else 0)
    want = want * (s if scale else 1)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
