"""The MSL the tracer writes (compiled.source), checked line by line. These need no C
library: Kernel.source traces without compiling."""

import pytest

import enigma


def _lines(k):
    return [l.strip() for l in k.source.splitlines()]


def test_naive_gemm_loop_carried_value():
    @enigma.kernel
    def naive_gemm(A: enigma.f32, B: enigma.f32, C: enigma.f32,
                   K: enigma.Scalar(enigma.u32), N: enigma.Scalar(enigma.u32)):
        row = enigma.thread_position_in_grid_xyz("y")
        col = enigma.thread_position_in_grid_xyz("x")
        acc = enigma.f32(0.0)
        with enigma.for_range(0, K, init=[enigma.f32(0.0)]) as (k, acc):
            a_val = A[row * K + k]
            b_val = B[k * N + col]
            acc = enigma.fma(a_val, b_val, acc)
        C[row * N + col] = acc

    L = _lines(naive_gemm)
    assert "constant uint& K [[buffer(3)]]," in L
    assert "device float* C [[buffer(2)]]," in L
    assert "device const float* A [[buffer(0)]]," in L
    assert "uint3 thread_position_in_grid [[thread_position_in_grid]])" in L
    init = L.index("float acc_1 = 0.0f;")
    loop = L.index("for (uint k = 0u; k < K; k += 1u) {")
    upd = L.index("acc_1 = fma(a_val, b_val, acc_1);")
    store = L.index("C[(row * N) + col] = acc_1;")
    assert init < loop < upd < store


def test_if_else_assignment_merges_into_one_variable():
    @enigma.kernel
    def k(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        with enigma.if_(A[i] > 0.0):
            y = A[i] * 2.0
        with enigma.else_():
            y = -A[i]
        B[i] = y

    L = _lines(k)
    assert L.index("float y;") < L.index("if (A[i] > 0.0f) {")
    assert "} else {" in L
    assert "y = A[i] * 2.0f;" in L and "y = -A[i];" in L
    assert "B[i] = y;" in L


def test_literals_take_the_other_operands_type():
    @enigma.kernel
    def k(A: enigma.f16, B: enigma.u32, C: enigma.i64, D: enigma.f32):
        i = enigma.thread_position_in_grid
        D[i] = enigma.f32(A[i] * 2) + enigma.f32(B[i] + 3) + enigma.f32(C[i] - 1) + 0.5

    src = k.source
    assert "A[i] * 2.0h" in src
    assert "B[i] + 3u" in src
    assert "C[i] - long(1)" in src
    assert "+ 0.5f" in src


def test_for_range_forms():
    @enigma.kernel
    def k(A: enigma.i32):
        i = enigma.thread_position_in_grid
        with enigma.for_range(10, 0, -2) as j:
            A[i] = A[i] + j
        with enigma.for_range(5) as j:
            A[i] += j

    L = _lines(k)
    assert "for (int j = 10; j > 0; j -= 2) {" in L
    assert "for (int j_1 = 0; j_1 < 5; j_1 += 1) {" in L


def test_python_number_rebound_in_a_loop_is_refused():
    @enigma.kernel
    def k(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        total = 0
        with enigma.for_range(0, 4) as j:
            total = total + A[4 * i + j]
        B[i] = total

    with pytest.raises(enigma.TraceError, match=r"total = enigma.f32\(0\)"):
        k.source
