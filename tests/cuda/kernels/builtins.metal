// builtins.metal — one kernel per family of built-ins, so that every helper of the cuda
// prelude is instantiated for float, half and vector types and compiled by NVRTC
// (tests/cuda: cuda.files). Not run: the semantic suite checks the values.
#include <metal_stdlib>
using namespace metal;

struct Item {
    float3 pos;
    half2 h;
    packed_float3 p;
    uint flags;
    float weights[3];
};

constant float table[4] = {1.0f, 2.0f, 0.5f, -1.0f};
constant float4 axis = float4(0.0f, 1.0f, 0.0f, 1.0f);

kernel void float_math(device float4 *v [[buffer(0)]], device half4 *h [[buffer(1)]],
                       device float *s [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    float4 a = v[i];
    float4 b = fabs(a) + 0.5f;
    float4 r = sin(a) + cos(b) + tan(a) + exp(a) + exp2(a) + log(b) + log2(b) + log10(b);
    r += pow(b, a) + powr(b, 2.0f) + sqrt(b) + rsqrt(b) + floor(a) + ceil(a) + round(a) + rint(a) + trunc(a);
    r += fract(a) + fmod(a, b) + fmin(a, b) + fmax(a, b) + clamp(a, -1.0f, 1.0f) + mix(a, b, 0.25f);
    r += step(0.5f, a) + smoothstep(0.0f, 1.0f, a) + sign(a) + saturate(a) + fma(a, b, a);
    r += asin(saturate(a)) + acos(saturate(a)) + atan(a) + atan2(a, b) + sinh(a) + cosh(a) + tanh(a);
    r += asinh(a) + acosh(b + 1.0f) + atanh(saturate(a) * 0.5f) + sinpi(a) + cospi(a) + copysign(a, b);
    r += float4(dot(a, b), length(a), distance(a, b), 0.0f) + normalize(b) + axis * table[i % 4];
    r = select(r, -r, a < b);
    r += float4(isnan(a)) + float4(isinf(b)) + float4(isfinite(a)) + float4(signbit(a));
    r += ldexp(a, int4(2)) + float4(all(a > b) ? 1.0f : 0.0f, any(a > b) ? 1.0f : 0.0f, 0.0f, 0.0f);
    float3 c = cross(a.xyz, b.zyx);
    r.xyz += c;
    r.w = precise::sqrt(r.w) + fast::exp(r.x);
    v[i] = r;
    half4 x = h[i];
    half4 y = abs(x) + half4(1.0h);
    h[i] = sin(x) + sqrt(y) + max(x, y) + min(x, y) + clamp(x, half(0.0h), half(1.0h)) + x * y - x / y;
    s[i] = fmin(s[i], 3.0f) + float(h[i].x) + table[i & 3u];
}

kernel void int_math(device int4 *v [[buffer(0)]], device uint *u [[buffer(1)]],
                     device short *sh [[buffer(2)]], device uchar4 *c [[buffer(3)]],
                     uint i [[thread_position_in_grid]]) {
    int4 a = v[i];
    int4 b = a * 3 + 1;
    int4 r = abs(a) + min(a, b) + max(a, b) + clamp(a, -5, 5) + a / b + a % b + (a << 3) + (b >> 2);
    r += (a & b) | (a ^ b) + ~a + popcount(a) + clz(a) + ctz(b) + mulhi(a, b) + mul24(a, b);
    r += mad24(a, b, a) + rotate(a, b) + addsat(a, b) + subsat(a, b) + hadd(a, b) + rhadd(a, b);
    r += max3(a, b, r) + min3(a, b, r) + median3(a, b, r) + reverse_bits(a);
    r += extract_bits(a, 3u, 5u) + insert_bits(a, b, 4u, 8u);
    v[i] = r;
    uint x = u[i];
    u[i] = x / (x & 7u) + x % 5u + popcount(x) + clz(x) + (x >> 31) + rotate(x, 5u) + absdiff(x, 7u);
    short s = sh[i];
    sh[i] = s * s + s / short(3) + short(s >> 1) + abs(s) + addsat(s, short(30000));
    uchar4 q = c[i];
    c[i] = q + q * uchar4(2) + (q >> 1) + popcount(q);
}

kernel void structs_and_arrays(device Item *items [[buffer(0)]], constant Item &proto [[buffer(1)]],
                               device float *out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    Item it = items[i];
    float w[3] = {1.0f, 2.0f, 3.0f};
    for (int k = 0; k < 3; k++)
        w[k] += it.weights[k] * proto.weights[k];
    it.pos += float3(it.p) + proto.pos;
    it.pos.xz = it.pos.zx;
    it.h = half2(w[0], w[1]);
    it.flags |= 1u << (i % 32u);
    items[i] = it;
    out[i] = w[0] + w[1] + w[2] + it.pos.y + float(it.h.y);
}

kernel void threadgroup_atomics(device atomic_uint *hist [[buffer(0)]], device const uint *keys [[buffer(1)]],
                                device atomic_int *mn [[buffer(2)]], device atomic_float *total [[buffer(3)]],
                                threadgroup atomic_uint *local_hist [[threadgroup(0)]],
                                uint i [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],
                                uint tpg [[threads_per_threadgroup]]) {
    threadgroup atomic_int counter;
    if (lid == 0) atomic_store_explicit(&counter, 0, memory_order_relaxed);
    for (uint b = lid; b < 64u; b += tpg) atomic_store_explicit(&local_hist[b], 0u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint k = keys[i] % 64u;
    atomic_fetch_add_explicit(&local_hist[k], 1u, memory_order_relaxed);
    int ticket = atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
    atomic_fetch_min_explicit(mn, int(keys[i]) - ticket, memory_order_relaxed);
    atomic_fetch_sub_explicit(total, 0.5f, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint b = lid; b < 64u; b += tpg) {
        uint n = atomic_load_explicit(&local_hist[b], memory_order_relaxed);
        if (n) atomic_fetch_add_explicit(&hist[b], n, memory_order_relaxed);
    }
    uint expected = 0u;
    atomic_compare_exchange_weak_explicit(&hist[0], &expected, 1u, memory_order_relaxed, memory_order_relaxed);
    uint old = atomic_exchange_explicit(&hist[1], 5u, memory_order_relaxed);
    atomic_fetch_or_explicit(&hist[2], old, memory_order_relaxed);
    atomic_fetch_max_explicit(&hist[3], old, memory_order_relaxed);
}

kernel void simd_everything(device float *x [[buffer(0)]], device int *y [[buffer(1)]],
                            device half *h [[buffer(2)]], device uint *votes [[buffer(3)]],
                            uint i [[thread_position_in_grid]], ushort lane [[thread_index_in_simdgroup]],
                            ushort q [[thread_index_in_quadgroup]]) {
    float a = x[i];
    int b = y[i];
    half c = h[i];
    if (lane % 5 != 0) {
        a = simd_sum(a) + simd_product(a) + simd_min(a) + simd_max(a) + simd_prefix_inclusive_product(a);
        b = simd_and(b) + simd_or(b) + simd_xor(b) + simd_prefix_exclusive_sum(b) + simd_min(b);
        c = simd_sum(c) + simd_max(c) + simd_shuffle_xor(c, ushort(1));
        votes[i] = uint(simd_vote::vote_t(simd_ballot(a > 0.0f))) + (simd_all(b > 0) ? 1u : 0u) + (simd_any(b < 0) ? 2u : 0u);
    } else {
        a = simd_shuffle(a, ushort(lane ^ 1u)) + simd_broadcast(a, ushort(3)) + simd_shuffle_rotate_up(a, ushort(2));
        b = quad_sum(b) + quad_prefix_inclusive_sum(b) + quad_shuffle(b, ushort(3u - q)) + quad_broadcast_first(b);
        votes[i] = uint(quad_vote::vote_t(quad_ballot(b > 0))) + (quad_is_first() ? 16u : 0u) + (simd_is_first() ? 32u : 0u);
    }
    simdgroup_barrier(mem_flags::mem_none);
    x[i] = a + float(quad_min(c)) + float(quad_product(b)) + float(quad_and(uint(b))) + float(quad_or(b)) + float(quad_xor(b));
    y[i] = b + quad_max(b) + quad_prefix_exclusive_product(b) + quad_shuffle_up(b, ushort(1)) + quad_shuffle_down(b, ushort(1));
    h[i] = c + quad_shuffle_rotate_down(c, ushort(1)) + quad_shuffle_and_fill_up(c, half(1.0h), ushort(1)) + simd_shuffle_and_fill_down(c, c, ushort(3), ushort(4));
}

kernel void matrices(device const float *a [[buffer(0)]], device const half *b [[buffer(1)]],
                     device float *c [[buffer(2)]], device half *d [[buffer(3)]],
                     threadgroup float *tile [[threadgroup(0)]], uint lid [[thread_index_in_threadgroup]]) {
    tile[lid] = a[lid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_float8x8 ma, mb, mc;
    simdgroup_load(ma, tile, 8);
    simdgroup_load(mb, a, 8, ulong2(0, 0), true);
    mc = make_filled_simdgroup_matrix<float, 8, 8>(1.0f);
    simdgroup_multiply_accumulate(mc, ma, mb, mc);
    simdgroup_multiply(mc, mc, ma);
    simdgroup_store(mc, c, 8);
    simdgroup_half8x8 ha, hb;
    simdgroup_load(ha, b, 16, ulong2(8, 0));
    simdgroup_multiply(hb, ha, ha);
    simdgroup_store(hb, d, 16, ulong2(0, 8), true);
}

kernel void control_flow(device int *out [[buffer(0)]], constant uint &n [[buffer(1)]],
                         uint i [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]]) {
    threadgroup int scratch[128];
    int acc = 0;
    for (uint a = 0; a < n; a++) {
        if (a == 3) continue;
        for (uint b = 0; b < 4; b++) {
            if (b == a) break;
            acc += int(a * b);
        }
        if (acc > 1000) break;
    }
    uint k = 0;
    while (k < 10) { acc ^= int(k); k += 2; }
    do { acc += 1; k--; } while (k > 5);
    bool flag = acc > 10 && (i % 2 == 0 || lid < 3);
    acc = flag ? acc : -acc;
    scratch[lid % 128] = acc;
    threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);
    if (i >= n) return;
    out[i] = scratch[(lid + 1) % 128] + acc;
}
