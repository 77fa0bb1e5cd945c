// bench_gemm.cu — enigma's simdgroup-matrix GEMM (gemm_simdgroup.metal) on the cuda backend
// against cuBLAS, in one process on one GPU (issue 11).
//
//   bench_gemm KERNEL_DIR [SIZE] [RESULTS_FILE]       (SIZE: M = N = K, default 4096; $GEMM_K sets K alone)
//   GEMM_PROFILE=1: one dispatch of each enigma kernel, nothing else (for ncu)
//   GEMM_ONLY=gemm_f16 (or gemm_bf16, gemm_f32): that case alone, in the issue's form only
//   (no _pipelined, _prefetch2, _wide), for A/B runs of one setting
//
// Figures, each against its reference measured in the same run (device time per call: the
// median of 10 after 3 warm-ups, events around each call):
//   f16   gemm_f16, gemm_f16_pipelined and gemm_f16_prefetch2 (half A, B; float accumulators and C;
//         and gemm_f16_wide, a 128x128 tile for comparison) vs
//         cublasGemmEx half x half -> float, CUBLAS_COMPUTE_32F (the same arithmetic), and
//         -> half for the record
//   bf16  gemm_bf16(_pipelined, _prefetch2, _wide) vs cublasGemmEx bfloat x bfloat -> float (and -> bfloat)
//   f32   gemm_f32(_pipelined, _prefetch2) (3xTF32 by default) vs cublasSgemm (FP32 FMA) and vs
//         cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (one TF32 product: less accurate)
//   mma   hand CUDA: the throughput of mma.sync m16n8k8 and m16n8k16 (f16 -> f32) on this
//         GPU, which bounds what 8x8 operations on tensor cores can reach
// Every result is checked: enigma's C against cuBLAS's (same inputs) and against
// double-precision dot products at 64 spots. Inputs are random and exact in every element
// type (k/64 for integers k in [-128, 128), never 0).
// Build (bench/cuda/gemm.sh): nvcc -O3 -arch=sm_90 -std=c++17 bench_gemm.cu -I include
//   -L build -lenigma -lcublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "enigma.h"

#include "check.h"

static std::string results;
static void line(const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    puts(buf);
    fflush(stdout);
    results += buf;
    results += '\n';
}
static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// k/64 for k in [-128, 128) \ {0}: exact in half, bfloat and float
static void random_values(std::vector<float> &v, uint64_t seed) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto &f : v) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        int k = (int)((x >> 33) % 255) - 127;
        f = (float)(k ? k : 1) / 64.0f;
    }
}

// ---- the tensor-core ceiling: independent mma.sync chains, no memory -----------------------
template <int K16>
__global__ void mma_throughput(float *out, int iters) {
    float acc[8][4] = {};
    unsigned a[4] = {0x3c003c00u ^ threadIdx.x, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u}, b[2] = {0x3c003c00u, 0x3c003c00u};
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < 8; c++) {
            if (K16)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                             : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
            else
                asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                             : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                             : "r"(a[0]), "r"(a[1]), "r"(b[0]));
        }
    float s = 0;
    for (int c = 0; c < 8; c++) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    if (s == 12345.0f) out[threadIdx.x] = s;
}

struct Gpu {
    cudaEvent_t e0, e1;
    cublasHandle_t blas;
    double event_ms() {
        float ms = 0;
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        return ms;
    }
};

// the element type's bits of float values that are exact in it
static std::vector<uint16_t> to_half(const std::vector<float> &v) {
    std::vector<uint16_t> r(v.size());
    for (size_t i = 0; i < v.size(); i++) { __half h = __float2half_rn(v[i]); memcpy(&r[i], &h, 2); }
    return r;
}
static std::vector<uint16_t> to_bf16(const std::vector<float> &v) {
    std::vector<uint16_t> r(v.size());
    for (size_t i = 0; i < v.size(); i++) { uint32_t b; memcpy(&b, &v[i], 4); r[i] = (uint16_t)(b >> 16); }
    return r;
}

struct Case {
    const char *kernel;   // in gemm_simdgroup.metal
    const char *label;
    int elem_size;        // bytes of an element of A and B
};

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_gemm KERNEL_DIR [SIZE] [RESULTS_FILE]\n");
        return 2;
    }
    std::string dir = argv[1];
    const uint32_t S = argc > 2 ? (uint32_t)atoi(argv[2]) : 4096;
    const char *results_path = argc > 3 ? argv[3] : nullptr;
    // $GEMM_K: K other than SIZE (M = N = SIZE), to part a kernel's time per K step from its fixed cost
    const uint32_t M = S, N = S, K = getenv("GEMM_K") ? (uint32_t)atoi(getenv("GEMM_K")) : S;
    const double flops = 2.0 * M * N * K;
    const bool profile = getenv("GEMM_PROFILE") != nullptr;
    const int runs = profile ? 1 : 13, warm = profile ? 0 : 3;

    setenv("ENIGMA_CUDA_TIMING", "1", 1); // enigma's own events around each dispatch
    enigma_device *dev = nullptr;
    EN(enigma_device_open("cuda", &dev));
    enigma_device_info info;
    EN(enigma_device_get_info(dev, &info));
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    Gpu g;
    CK(cudaEventCreate(&g.e0));
    CK(cudaEventCreate(&g.e1));
    CB(cublasCreate(&g.blas));
    int cublas_version = 0;
    cublasGetVersion(g.blas, &cublas_version);
    line("device: %s (%u SMs), cuBLAS %d; C = A x B, M = N = %u, K = %u, row-major", info.name, info.compute_units,
         cublas_version, S, K);

    if (!profile) {   // the mma.sync ceiling
        int sms = 0;
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        float *out;
        CK(cudaMalloc(&out, 4096));
        const int iters = 4096, blocks = sms * 8, threads = 256;
        for (int k16 = 0; k16 < 2; k16++) {
            std::vector<double> ms;
            for (int i = 0; i < 5; i++) {
                CK(cudaEventRecord(g.e0));
                if (k16) mma_throughput<1><<<blocks, threads>>>(out, iters);
                else mma_throughput<0><<<blocks, threads>>>(out, iters);
                CK(cudaEventRecord(g.e1));
                ms.push_back(g.event_ms());
            }
            double f = 2.0 * 16 * 8 * (k16 ? 16 : 8) * 8.0 * iters * (blocks * threads / 32.0);
            line("mma.sync %-8s f16 -> f32, no memory: %8.1f TFLOP/s", k16 ? "m16n8k16" : "m16n8k8",
                 f / (median(ms) * 1e-3) / 1e12);
        }
        CK(cudaFree(out));
    }

    enigma_library *lib = nullptr;
    {
        std::string path = dir + "/gemm_simdgroup.metal";
        enigma_status st = enigma_library_create_from_file(dev, path.c_str(), nullptr, &lib);
        if (st != ENIGMA_OK) {
            fprintf(stderr, "%s: %s: %s\n%s\n", path.c_str(), enigma_status_name(st), enigma_last_error(),
                    lib ? enigma_library_diagnostics_text(lib) : "");
            return 1;
        }
    }

    std::vector<float> a((size_t)M * K), b((size_t)K * N);
    random_values(a, 21);
    random_values(b, 22);
    const Case cases[] = {{"gemm_f16", "f16 ", 2}, {"gemm_bf16", "bf16", 2}, {"gemm_f32", "f32 ", 4}};
    bool all_ok = true;
    // $GEMM_ONLY (header)
    const char *only = getenv("GEMM_ONLY");
    for (const Case &c : cases) {
        if (only && strcmp(only, c.kernel) != 0) continue;
        std::vector<uint16_t> a16, b16;
        const void *ha = a.data(), *hb = b.data();
        const bool half = strcmp(c.kernel, "gemm_f16") == 0;
        if (c.elem_size == 2) {
            a16 = half ? to_half(a) : to_bf16(a);
            b16 = half ? to_half(b) : to_bf16(b);
            ha = a16.data();
            hb = b16.data();
        }
        size_t abytes = (size_t)M * K * c.elem_size, bbytes = (size_t)K * N * c.elem_size, cbytes = (size_t)M * N * 4;

        // cuBLAS first, column-major: C^T = B^T A^T, so B comes first
        void *da, *db, *dc, *dc2;
        CK(cudaMalloc(&da, abytes));
        CK(cudaMalloc(&db, bbytes));
        CK(cudaMalloc(&dc, cbytes));
        CK(cudaMalloc(&dc2, cbytes)); // the second reference's C (half, bfloat or float)
        CK(cudaMemcpy(da, ha, abytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, hb, bbytes, cudaMemcpyHostToDevice));
        const float one = 1.0f, zero = 0.0f;
        cudaDataType_t in_type = c.elem_size == 4 ? CUDA_R_32F : half ? CUDA_R_16F : CUDA_R_16BF;
        struct Ref { const char *name; cudaDataType_t out; cublasComputeType_t compute; double ms; };
        std::vector<Ref> refs;
        if (c.elem_size == 2) {
            refs.push_back({"cublasGemmEx -> float, COMPUTE_32F", CUDA_R_32F, CUBLAS_COMPUTE_32F, 0});
            refs.push_back({"cublasGemmEx -> same type, COMPUTE_32F", in_type, CUBLAS_COMPUTE_32F, 0});
        } else {
            refs.push_back({"cublasSgemm (FP32 FMA)", CUDA_R_32F, CUBLAS_COMPUTE_32F, 0});
            refs.push_back({"cublasGemmEx COMPUTE_32F_FAST_TF32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 0});
        }
        std::vector<float> blas_c;
        for (size_t r = 0; r < refs.size() && !profile; r++) {
            std::vector<double> ms;
            for (int i = 0; i < 13; i++) {
                CK(cudaEventRecord(g.e0));
                CB(cublasGemmEx(g.blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, db, in_type, (int)N, da,
                                in_type, (int)K, &zero, r == 0 ? dc : dc2, refs[r].out, (int)N, refs[r].compute,
                                CUBLAS_GEMM_DEFAULT));
                CK(cudaEventRecord(g.e1));
                double t = g.event_ms();
                if (i >= 3) ms.push_back(t);
            }
            refs[r].ms = median(ms);
            line("%s cuBLAS %-40s %8.3f ms  %7.1f TFLOP/s", c.label, refs[r].name, refs[r].ms,
                 flops / (refs[r].ms * 1e-3) / 1e12);
            if (r == 0) {
                blas_c.resize((size_t)M * N);
                CK(cudaMemcpy(blas_c.data(), dc, cbytes, cudaMemcpyDeviceToHost));
            }
        }
        CK(cudaFree(da));
        CK(cudaFree(db));
        CK(cudaFree(dc));
        CK(cudaFree(dc2));

        enigma_buffer *ea, *eb, *ec;
        EN(enigma_buffer_create_with_data(dev, ha, abytes, &ea));
        EN(enigma_buffer_create_with_data(dev, hb, bbytes, &eb));
        EN(enigma_buffer_create(dev, cbytes, &ec));
        // the issue's shape (64x64 tiles, 128 threads) in three forms, and for 16-bit inputs a
        // wider tile for comparison (128x128, 256 threads; not defined for float)
        struct Form { const char *suffix; uint32_t tile, threads; };
        const Form forms[] = {{"", 64, 128}, {"_pipelined", 64, 128}, {"_prefetch2", 64, 128}, {"_wide", 128, 256}};
        for (const Form &form : forms) {
            if ((form.tile != 64 && c.elem_size != 2) || (only && form.suffix[0])) continue;
            std::string kernel = std::string(c.kernel) + form.suffix;
            enigma_pipeline *p;
            EN(enigma_pipeline_create(lib, kernel.c_str(), &p));
            enigma_command *cmd;
            EN(enigma_command_create(p, &cmd));
            EN(enigma_command_set_buffer(cmd, 0, ea, 0));
            EN(enigma_command_set_buffer(cmd, 1, eb, 0));
            EN(enigma_command_set_buffer(cmd, 2, ec, 0));
            EN(enigma_command_set_bytes(cmd, 3, &M, 4));
            EN(enigma_command_set_bytes(cmd, 4, &N, 4));
            EN(enigma_command_set_bytes(cmd, 5, &K, 4));
            // poisoned first (0xff bytes: NaN), so an element no form writes fails the checks
            std::vector<unsigned char> poison(cbytes, 0xff);
            EN(enigma_buffer_write(ec, 0, poison.data(), cbytes));
            std::vector<double> en_ms;
            for (int i = 0; i < runs; i++) {
                EN(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, enigma_size3{N / form.tile, M / form.tile, 1},
                                           enigma_size3{form.threads, 1, 1}));
                if (i >= warm) en_ms.push_back(enigma_command_last_duration_ns(cmd) * 1e-6);
            }
            std::vector<float> got((size_t)M * N);
            EN(enigma_buffer_read(ec, 0, got.data(), cbytes));
            double en = median(en_ms);
            std::string vs;
            for (const Ref &r : refs) {
                char buf[96];
                snprintf(buf, sizeof buf, "  %.3fx %s", r.ms / en, r.compute == CUBLAS_COMPUTE_32F_FAST_TF32 ? "TF32" :
                         r.out == CUDA_R_32F ? (c.elem_size == 4 ? "SGEMM" : "(->float)") : "(->same)");
                vs += buf;
            }
            line("%s enigma %-20s %8.3f ms  %7.1f TFLOP/s   speed vs cuBLAS:%s", c.label, kernel.c_str(), en,
                 flops / (en * 1e-3) / 1e12, profile ? "" : vs.c_str());
            // checks: every element against cuBLAS (same products, other summation order), and
            // 64 spots against double precision
            double worst_blas = 0, worst_exact = 0;
            size_t unwritten = 0; // still NaN: the poison, or a NaN computed
            for (size_t i = 0; i < got.size(); i++) unwritten += !std::isfinite(got[i]);
            for (size_t i = 0; i < got.size() && !profile; i++)
                worst_blas = std::max(worst_blas, (double)fabsf(got[i] - blas_c[i]));
            for (int t = 0; t < 64; t++) {
                uint32_t r = (uint32_t)((t * 2654435761u) % M), col = (uint32_t)((t * 40503u + 7) % N);
                double ref = 0;
                for (uint32_t k = 0; k < K; k++) ref += (double)a[(size_t)r * K + k] * b[(size_t)k * N + col];
                worst_exact = std::max(worst_exact, fabs(got[(size_t)r * N + col] - ref));
            }
            // the products are exact and so are sums of up to 2^24 / 64^2 ... terms: allow float rounding
            bool ok = unwritten == 0 && worst_exact < 1e-3 * std::max(1.0, K / 1024.0) &&
                      worst_blas < 2e-3 * std::max(1.0, K / 1024.0);
            all_ok &= ok;
            line("%s   check: max |enigma - cuBLAS| %.2e, max |enigma - float64| %.2e at 64 spots, %zu not finite: %s",
                 c.label, worst_blas, worst_exact, unwritten, ok ? "ok" : "WRONG RESULTS");
            enigma_command_destroy(cmd);
            enigma_pipeline_destroy(p);
        }
        enigma_buffer_destroy(ea);
        enigma_buffer_destroy(eb);
        enigma_buffer_destroy(ec);
    }
    enigma_library_destroy(lib);
    cublasDestroy(g.blas);
    enigma_device_close(dev);
    if (results_path) {
        FILE *f = fopen(results_path, "w");
        if (f) { fputs(results.c_str(), f); fclose(f); }
    }
    return all_ok ? 0 : 1;
}
