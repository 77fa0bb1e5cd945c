"""MSL matrix types floatCxR / halfCxR / matrix<T, C, R>: C columns of R-lane vectors with
MSL's layout (a float2x3 is two 16-byte float3 columns), columns and lanes indexed as
m[c][r], and converted column by column with an explicit cast (as dequantizing helpers
do through a template parameter)."""
import numpy as np

from semharness import close, floats, garbage

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

SRC = HEADER + """
template <typename type4x4>
void load_mat(device const half4x4 *src, thread type4x4 &reg) {
    reg = (type4x4)(*src);
}
kernel void mm(device const half4x4 *a [[buffer(0)]], device float *o [[buffer(1)]],
               device matrix<float, 2, 3> *t [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    float4x4 m;
    load_mat(a + i, m);
    float s = 0.0f;
    for (int c = 0; c < 4; c++) s += dot(m[c], float4(float(c + 1)));
    o[i] = s + m[2][3];
    float2x3 q;
    q[0] = float3(m[0].xyz);
    q[1] = float3(m[1][0], m[1][1], s);
    t[i] = q;
}
"""


def test_matrix_columns_and_conversion(run, rng, tmp_path):
    n = 128
    a = floats(rng, (n, 4, 4), -2, 2).astype(np.float16)
    raw_t = tmp_path / "t.bin"
    raw_t.write_bytes(garbage(rng, (n, 2, 4)).tobytes())   # float3 columns take 16 bytes
    out_t = tmp_path / "t_out.bin"
    r = run(SRC, {"a": a, "o": garbage(rng, n), "t": f"@{raw_t}"}, ["o"], grid=n, threads=32,
            extra=["-o", f"t={out_t}"])
    m = a.astype(np.float64)
    s = (m * np.arange(1, 5)[None, :, None]).sum(axis=(1, 2))
    close(r["o"], s + m[:, 2, 3], rtol=1e-5, atol=1e-4, what="dot of columns + m[2][3]")
    t = np.frombuffer(out_t.read_bytes(), dtype=np.float32).reshape(n, 2, 4)
    close(t[:, 0, :3], m[:, 0, :3], what="column 0 of the float2x3")
    close(t[:, 1, 0], m[:, 1, 0], what="q[1][0]")
    close(t[:, 1, 1], m[:, 1, 1], what="q[1][1]")
    close(t[:, 1, 2], s, rtol=1e-5, atol=1e-4, what="q[1][2]")
