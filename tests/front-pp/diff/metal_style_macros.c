/* macro idioms seen in generated Metal kernels (tinygrad, MLX, llama.cpp) */
#define QK 32
#define N_SIMDWIDTH 32
#define UNROLL_LOOP(i, n, body) for (int i = 0; i < (n); ++i) { body }
#define KERNEL_NAME(op, type) kernel_##op##_##type
#define INSTANTIATE(op, type) template [[host_name("k_" #op "_" #type)]] kernel void KERNEL_NAME(op, type)(device type* p);
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define LOAD(ptr, ...) ptr[__VA_ARGS__]
#define CALL(f, ...) f(__VA_ARGS__)
#define ARGS 1, 2
#define EMPTY()
#define DEFER(x) x EMPTY()
UNROLL_LOOP(j, QK / 4, acc += MAX(a[j], b[j]);)
INSTANTIATE(add, float)
INSTANTIATE(mul, half)
int n = CEIL_DIV(N_SIMDWIDTH * 3, QK);
float v = LOAD(buf, idx + CEIL_DIV(7, 2));
CALL(fma, ARGS, 3);
DEFER(CALL)(g, 1)
