#include <metal_stdlib>
using namespace metal;

template <typename T>
T twice(T x) { return x + x; }

template <> float twice<float>(float x) { return x * 3.0f; }

template <int N>
int pick(int a) { return a + N; }
template <> int pick<2>(int a) { return a * 100; }

void fill_one(device float *p, uint i) { p[i] = 1.0f; }
void fill_two(device float *p, uint i) { p[i] = 2.0f; }

template <typename T, void (*fill)(device float *, uint), int K = 4>
kernel void scale(device const T *in [[buffer(0)]], device float *out [[buffer(1)]],
                  uint gid [[thread_position_in_grid]]) {
    fill(out, gid);
    out[gid] += float(twice(in[gid])) * K + pick<2>(1);
}

typedef decltype(scale<float, fill_one>) scale_t;

template [[host_name("scale_f32")]] kernel scale_t scale<float, fill_one>;
template [[host_name("scale_i32_k2")]] kernel scale_t scale<int, fill_two, 2>;
template [[host_name("scale_h")]] [[kernel]] decltype(scale<half, fill_one>) scale<half, fill_one>;
typedef void (put_t)(device float *p, uint gid);
template <typename T> kernel void put(device float *p [[buffer(0)]], uint gid [[thread_position_in_grid]]) { p[gid] = float(T(gid) / T(2)); }
template [[host_name("put_int")]] kernel put_t put<int>;
[[host_name("renamed_plain")]] kernel void plain(device float *p [[buffer(0)]]) { p[0] = 7.0f; }
