// wgmma_shape.cu — what the tensor pipe gives each wgmma shape with its operands in shared
// memory and nothing else in the loop: no copies from global memory, the same bytes multiplied
// at every step. It separates issue 11's question "is the 64x64 warpgroup tile (m64n64k16, both
// operands from shared memory) itself below 0.5x cuBLAS on this GPU?" from the costs of the
// K loop's copies. Each row of the table is one kernel:
//   - N: the instruction m64nNk16 (f16 in, f32 accumulate), 2 a step (a K step of 32);
//   - warpgroups a block, and whether the block meets at a barrier every 2 steps (as the quad
//     of the compiled kernel does, its MMAs waited for down to one step first);
//   - B K-major (both operands 64-byte swizzled rows of 32 halves) or, as the compiled kernel
//     stages it, MN-major in 128-byte swizzled rows (instruction's transpose-b).
// Operands cycle through STAGES buffers as a pipelined kernel's do; the staging bytes are
// small nonzero halves (tensor-core power, hence clocks, depends on the data).
//
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 bench/cuda/wgmma_shape.cu -o wgmma_shape && ./wgmma_shape
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "check.h"

template <int TRANS_B> __device__ __forceinline__ void mma_n64(float (&d)[32], unsigned long long a, unsigned long long b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, %34;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "n"(TRANS_B));
}
template <int TRANS_B> __device__ __forceinline__ void mma_n128(float (&d)[64], unsigned long long a, unsigned long long b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, %66;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "n"(TRANS_B));
}
template <int TRANS_B> __device__ __forceinline__ void mma_n256(float (&d)[128], unsigned long long a, unsigned long long b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, %130;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(a), "l"(b), "n"(TRANS_B));
}

__device__ __forceinline__ unsigned long long desc(unsigned addr, unsigned lead, unsigned stride, unsigned swizzle) {
    return (unsigned long long)((addr >> 4) + ((lead >> 4) << 16)) | ((unsigned long long)(stride >> 4) << 32) |
           ((unsigned long long)swizzle << 62);
}
template <int N> __device__ __forceinline__ void mma(float (&d)[N / 2], unsigned long long a, unsigned long long b, bool trans_b) {
    if constexpr (N == 64) { if (trans_b) mma_n64<1>(d, a, b); else mma_n64<0>(d, a, b); }
    if constexpr (N == 128) mma_n128<0>(d, a, b);
    if constexpr (N == 256) mma_n256<0>(d, a, b);
}
template <int R> __device__ __forceinline__ void keep(float (&d)[R]) {
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// A block of WGS warpgroups; warpgroup w reads A buffer (w / 2) and B buffer (w % 2) of each
// stage, as a quad's threadgroups share a row's A and a column's B (one warpgroup: its own).
template <int N, int WGS, int STAGES, bool BARRIER, bool TRANS_B, int MIN_BLOCKS>
__global__ void __launch_bounds__(128 * WGS, MIN_BLOCKS) mma_only(int steps, float *sink) {
    extern __shared__ __align__(1024) unsigned char smem[];
    constexpr int A_BYTES = 64 * 32 * 2, B_BYTES = 32 * N * 2;
    constexpr int AS = WGS > 1 ? 2 : 1, BS = WGS > 1 ? 2 : 1;
    constexpr int STAGE = AS * A_BYTES + BS * B_BYTES;
    const unsigned start = (unsigned)__cvta_generic_to_shared(smem);
    const unsigned base = start + ((1024u - (start & 1023u)) & 1023u);
    unsigned char *gen = smem + (base - start);
    for (int i = threadIdx.x; i < STAGES * STAGE / 2; i += blockDim.x)
        reinterpret_cast<__half *>(gen)[i] = __float2half(0.001f * (float)((i * 7) % 13 + 1));
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const int w = threadIdx.x >> 7;
    const unsigned a_off = (w / 2 % AS) * A_BYTES, b_off = AS * A_BYTES + (w % 2 % BS) * B_BYTES;
    float d[N / 2];
    for (int i = 0; i < N / 2; i++) d[i] = 0.0f;
    for (int s = 0; s < steps; s++) {
        const unsigned st = base + (unsigned)(s % STAGES) * STAGE;
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        for (int t = 0; t < 2; t++) {
            const unsigned long long a = desc(st + a_off + 32 * t, 16, 512, 2);
            const unsigned long long b = TRANS_B ? desc(st + b_off + 2048 * t, 16, 1024, 1)
                                                 : desc(st + b_off + 32 * t, 16, 512, 2);
            mma<N>(d, a, b, TRANS_B);
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        if (BARRIER && s % 2 == 1) {
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            keep(d);
            __syncthreads();
        } else if (!BARRIER) {
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            keep(d);
        }
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    keep(d);
    float sum = 0.0f;
    for (int i = 0; i < N / 2; i++) sum += d[i];
    if (sum == 12345.0f) sink[threadIdx.x] = sum; // keeps the multiplies
}

template <int N, int WGS, int STAGES, bool BARRIER, bool TRANS_B, int MIN_BLOCKS>
static void run(const char *name, int sms, float *sink) {
    auto kernel = mma_only<N, WGS, STAGES, BARRIER, TRANS_B, MIN_BLOCKS>;
    constexpr int AS = WGS > 1 ? 2 : 1, BS = WGS > 1 ? 2 : 1;
    const int bytes = STAGES * (AS * 64 * 32 * 2 + BS * 32 * N * 2) + 1024;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 128 * WGS, bytes));
    const int steps = 4096, blocks = sms * per_sm * 4; // 4 full waves
    kernel<<<blocks, 128 * WGS, bytes>>>(steps, sink); // warm-up
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int rep = 0; rep < 5; rep++) {
        CK(cudaEventRecord(e0));
        kernel<<<blocks, 128 * WGS, bytes>>>(steps, sink);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (ms < best) best = ms;
    }
    const double flop = (double)blocks * WGS * steps * 2 * (2.0 * 64 * N * 16);
    printf("%-52s %2d blocks/SM %7.1f TFLOP/s\n", name, per_sm, flop / (best * 1e-3) / 1e12);
}

int main() {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs; m64nNk16 f16 -> f32, both operands from shared memory, 2 a step\n", prop.name, sms);
    float *sink;
    CK(cudaMalloc(&sink, 4096 * sizeof(float)));
    run<64, 1, 2, false, false, 8>("n64, 1 warpgroup a block", sms, sink);
    run<64, 1, 2, false, true, 8>("n64, 1 warpgroup a block, B MN-major", sms, sink);
    run<64, 4, 6, false, true, 2>("n64, quad (4 warpgroups), no barrier", sms, sink);
    run<64, 4, 6, true, true, 2>("n64, quad, barrier every 2 steps (the compiled form)", sms, sink);
    run<64, 4, 6, true, true, 1>("n64, quad, barrier every 2 steps, 1 block/SM bound", sms, sink);
    run<128, 1, 2, false, false, 4>("n128, 1 warpgroup a block", sms, sink);
    run<128, 2, 4, true, false, 2>("n128, 2 warpgroups, barrier every 2 steps", sms, sink);
    run<256, 1, 2, false, false, 2>("n256, 1 warpgroup a block", sms, sink);
    CK(cudaFree(sink));
    return 0;
}
