# mlx_splitk_time.py — times MLX's split-K steel GEMM (256 x 256 x 512, two partitions) on the cpu
# backend, best of 6 dispatches after one, checked against NumPy; ENIGMA_CPU_OUTLINE=100000000
# builds it without outlined statements (src/cpu/emit_outline.c), to compare run speed.
import os, sys, time
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import enigma
MLX = os.path.join(os.environ.get("ENIGMA_REALWORLD", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "realworld")), "mlx")
path = MLX + "/mlx/backend/metal/kernels/steel/gemm/kernels/steel_gemm_splitk.metal"
name = "steel_gemm_splitk_nn_float32_float32_bm16_bn16_bk16_wm2_wn2_MN_taligned_K_taligned"
P = np.dtype([(n, np.int32) for n in ("M", "N", "K", "lda", "ldb", "ldc", "tiles_n", "tiles_m",
    "split_k_partitions", "split_k_partition_stride", "split_k_partition_size", "swizzle_log", "gemm_k_iterations_aligned")])
c = enigma.compile_source(open(path).read(), name, filename=path, include_dirs=[MLX])
rt = enigma.Runtime("cpu")
m = n = 256; parts = 2; k_per = 256; k = parts * k_per
rng = np.random.default_rng()
a = rng.standard_normal((m, k)).astype(np.float32); b = rng.standard_normal((k, n)).astype(np.float32)
out = np.zeros((parts, m, n), np.float32)
params = np.zeros(1, P); params[0] = (m, n, k, k, n, n, n // 16, m // 16, parts, m * n, k_per, 0, k_per // 16)
ts = []
for r in range(7):
    t0 = time.perf_counter()
    rt.launch(c, grid=(n // 16, m // 16, parts), threads=(32, 2, 2), threadgroups=True, A=a, B=b, C=out, params=params.view(np.uint8))
    ts.append(time.perf_counter() - t0)
want = a.astype(np.float64)[:, :k_per] @ b.astype(np.float64)[:k_per]
assert np.allclose(out[0], want, rtol=1e-4, atol=1e-3)
print("outline=%s best %.2f ms (2*M*N*K = %.1f MFLOP)" % (os.environ.get("ENIGMA_CPU_OUTLINE", "default"), min(ts[1:]) * 1e3, 2 * m * n * k / 1e6))
