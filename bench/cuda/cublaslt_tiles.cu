// cublaslt_tiles.cu — what NVIDIA's own library reaches when it is held to a threadgroup tile:
// issue 11's GEMM shape (half A and B, float accumulate and result, 4096^3) through cuBLASLt,
// once with its own choice and then with every algorithm, stage count and split-K of 1 it
// accepts at each of a few output tiles (64x64 first: the tile of bench/cuda's kernels). The
// best figure per tile is what a hand-tuned library kernel of that tile gives on this GPU,
// so the 64x64 row is the yardstick for the compiled 64x64 kernels; the untiled row is the
// cublasGemmEx figure that issue 11's ratio is taken against.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/cuda/cublaslt_tiles.cu -lcublasLt -lcublas -o cublaslt_tiles
//   ./cublaslt_tiles [N]        (N: the matrix size, default 4096)
//
// Every timed configuration's result is compared with cuBLASLt's own choice (the first run)
// at 4096 sampled elements; a configuration that differs by more than float reassociation
// is reported and left out.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "check.h"

struct tile_name {
    cublasLtMatmulTile_t id;
    const char *name;
};
static const tile_name TILES[] = {{CUBLASLT_MATMUL_TILE_64x64, "64x64"},
                                  {CUBLASLT_MATMUL_TILE_64x128, "64x128"},
                                  {CUBLASLT_MATMUL_TILE_128x64, "128x64"},
                                  {CUBLASLT_MATMUL_TILE_128x128, "128x128"},
                                  {CUBLASLT_MATMUL_TILE_128x256, "128x256"},
                                  {CUBLASLT_MATMUL_TILE_256x128, "256x128"}};

struct problem {
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    const __half *a, *b;
    float *c;
    void *workspace;
    size_t workspace_bytes;
    int n;
};

// C = A x B row-major is C^T = B^T A^T column-major: cuBLAS's first operand is B
static cublasStatus_t run(const problem &p, const cublasLtMatmulAlgo_t *algo) {
    const float one = 1.0f, zero = 0.0f;
    return cublasLtMatmul(p.lt, p.op, &one, p.b, p.lb, p.a, p.la, &zero, p.c, p.lc, p.c, p.lc, algo, p.workspace,
                          p.workspace_bytes, 0);
}

// milliseconds per run, best of 3 rounds of 10 after a warm-up; < 0 when it fails
static double time_ms(const problem &p, const cublasLtMatmulAlgo_t *algo) {
    if (run(p, algo) != CUBLAS_STATUS_SUCCESS) return -1;
    CK(cudaDeviceSynchronize());
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        CK(cudaEventRecord(t0));
        for (int i = 0; i < 10; i++)
            if (run(p, algo) != CUBLAS_STATUS_SUCCESS) return -1;
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        float ms;
        CK(cudaEventElapsedTime(&ms, t0, t1));
        best = std::min(best, (double)ms / 10);
    }
    CK(cudaEventDestroy(t0));
    CK(cudaEventDestroy(t1));
    return best;
}

template <class T> static std::vector<T> cap_list(const cublasLtMatmulAlgo_t &algo, cublasLtMatmulAlgoCapAttributes_t a) {
    size_t bytes = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&algo, a, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS || bytes == 0) return {};
    std::vector<T> v(bytes / sizeof(T));
    if (cublasLtMatmulAlgoCapGetAttribute(&algo, a, v.data(), bytes, &bytes) != CUBLAS_STATUS_SUCCESS) return {};
    return v;
}

int main(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: cublaslt_tiles [N]\n"
               "Times C = A x B (half A and B, float C, N x N x N, default 4096) with cuBLASLt's own\n"
               "choice, then with the best algorithm and stage count it accepts at each of the\n"
               "tiles 64x64, 64x128, 128x64, 128x128, 128x256 and 256x128 (split-K 1), and prints\n"
               "a Markdown table.\n");
        return 0;
    }
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    if (n <= 0 || n % 64) {
        fprintf(stderr, "usage: cublaslt_tiles [N]   (N a multiple of 64)\n");
        return 1;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs; cuBLASLt %zu; %d^3, half x half -> float, COMPUTE_32F\n", prop.name,
           prop.multiProcessorCount, cublasLtGetVersion(), n);
    size_t count = (size_t)n * n;
    std::vector<__half> ha(count), hb(count);
    std::mt19937 rng((unsigned)time(nullptr));
    std::uniform_real_distribution<float> u(-1, 1);
    for (size_t i = 0; i < count; i++) ha[i] = __float2half(u(rng)), hb[i] = __float2half(u(rng));
    problem p{};
    p.n = n;
    __half *da, *db;
    CK(cudaMalloc(&da, count * 2));
    CK(cudaMalloc(&db, count * 2));
    CK(cudaMalloc(&p.c, count * 4));
    CK(cudaMemcpy(da, ha.data(), count * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb.data(), count * 2, cudaMemcpyHostToDevice));
    p.a = da, p.b = db;
    p.workspace_bytes = 64u << 20;
    CK(cudaMalloc(&p.workspace, p.workspace_bytes));
    CB(cublasLtCreate(&p.lt));
    CB(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CB(cublasLtMatrixLayoutCreate(&p.lb, CUDA_R_16F, n, n, n));
    CB(cublasLtMatrixLayoutCreate(&p.la, CUDA_R_16F, n, n, n));
    CB(cublasLtMatrixLayoutCreate(&p.lc, CUDA_R_32F, n, n, n));
    double flop = 2.0 * n * n * (double)n;

    // cuBLASLt's own choice: the reference result and the untiled figure
    cublasLtMatmulPreference_t pref;
    CB(cublasLtMatmulPreferenceCreate(&pref));
    CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &p.workspace_bytes,
                                            sizeof p.workspace_bytes));
    cublasLtMatmulHeuristicResult_t heur;
    int found = 0;
    CB(cublasLtMatmulAlgoGetHeuristic(p.lt, p.op, p.lb, p.la, p.lc, p.lc, pref, 1, &heur, &found));
    if (!found) {
        fprintf(stderr, "cuBLASLt offers no algorithm for this problem\n");
        return 1;
    }
    double ms = time_ms(p, &heur.algo);
    printf("| cuBLASLt's own choice | %.3f ms | %.1f TFLOP/s |\n", ms, flop / ms / 1e9);
    const double own = flop / ms / 1e9;
    std::vector<float> ref(count), got(count);
    CK(cudaMemcpy(ref.data(), p.c, count * 4, cudaMemcpyDeviceToHost));
    std::vector<size_t> samples(4096);
    for (auto &s : samples) s = (size_t)(rng() % count);

    int ids[256], id_count = 0;
    CB(cublasLtMatmulAlgoGetIds(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, 256,
                                ids, &id_count));
    printf("%d algorithms; each tile: every algorithm x stage count it accepts, split-K 1\n\n", id_count);
    printf("| tile | best | TFLOP/s | vs own choice | configurations timed |\n|---|---|---|---|---|\n");
    for (const tile_name &t : TILES) {
        double best_ms = 1e30;
        int best_id = -1, best_stages = -1, timed = 0;
        for (int k = 0; k < id_count; k++) {
            cublasLtMatmulAlgo_t algo;
            if (cublasLtMatmulAlgoInit(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F,
                                       CUDA_R_32F, ids[k], &algo) != CUBLAS_STATUS_SUCCESS)
                continue;
            std::vector<uint32_t> tiles = cap_list<uint32_t>(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
            if (std::find(tiles.begin(), tiles.end(), (uint32_t)t.id) == tiles.end()) continue;
            std::vector<uint32_t> stages = cap_list<uint32_t>(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
            if (stages.empty()) stages.push_back(CUBLASLT_MATMUL_STAGES_UNDEFINED);
            for (uint32_t st : stages) {
                cublasLtMatmulAlgo_t a = algo;
                uint32_t tile = t.id, splitk = 1;
                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile);
                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &st, sizeof st);
                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk);
                cublasLtMatmulHeuristicResult_t check;
                if (cublasLtMatmulAlgoCheck(p.lt, p.op, p.lb, p.la, p.lc, p.lc, &a, &check) != CUBLAS_STATUS_SUCCESS ||
                    check.workspaceSize > p.workspace_bytes)
                    continue;
                CK(cudaMemset(p.c, 0, count * 4));
                double m = time_ms(p, &a);
                if (m < 0) continue;
                CK(cudaMemcpy(got.data(), p.c, count * 4, cudaMemcpyDeviceToHost));
                bool same = true;
                for (size_t s : samples)
                    if (fabs(got[s] - ref[s]) > 1e-3 * (fabs(ref[s]) + 1)) same = false;
                if (!same) {
                    printf("(algorithm %d, stages %u: a different result, left out)\n", ids[k], st);
                    continue;
                }
                timed++;
                if (m < best_ms) best_ms = m, best_id = ids[k], best_stages = (int)st;
            }
        }
        if (best_id < 0)
            printf("| %s | none accepted | - | - | 0 |\n", t.name);
        else
            printf("| %s | algorithm %d, stages id %d: %.3f ms | %.1f | %.3fx | %d |\n", t.name, best_id, best_stages,
                   best_ms, flop / best_ms / 1e9, flop / best_ms / 1e9 / own, timed);
        fflush(stdout);
    }
    return 0;
}
