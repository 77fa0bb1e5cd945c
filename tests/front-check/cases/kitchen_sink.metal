#include <metal_stdlib>
using namespace metal;
// many features together: structs with packed fields, aliases, enums, namespaces, templates,
// overloads, references, switch, loops, short circuits, atomics, math, frexp/modf, ballot

struct Particle { float3 pos; float mass; packed_float3 vel; int id; };
typedef float4 vec4f;
using uint_t = uint;
enum Mode { MODE_A, MODE_B = 5, MODE_C };
enum class Op : uint { Add = 1, Mul };
constant float weights[3] = {0.25f, 0.5f, 0.25f};
constant int N = 4;
constexpr constant int M = N * 2;

namespace util {
  inline float sq(float x) { return x * x; }
  template <typename T> T twice(T x) { return x + x; }
  template <typename T, int K> T times(T x) { return x * T(K); }
}

static float helper(float a, thread float &out) { out = a * 2; return a + 1; }
float over(float x) { return x; }
int over(int x) { return x + 1; }

kernel void k1(device Particle *ps [[buffer(0)]],
               device float *out [[buffer(1)]],
               device atomic_uint *cnt [[buffer(2)]],
               constant uint &n [[buffer(3)]],
               uint2 gid [[thread_position_in_grid]],
               uint2 grid [[threads_per_grid]],
               ushort lane [[thread_index_in_simdgroup]]) {
  uint i = gid.x + gid.y * grid.x;
  if (i >= n) return;
  Particle p = ps[i];
  float3 v = float3(p.vel);
  vec4f a = vec4f(v, 1.0f);
  a.xy = a.yx;
  a.w += util::sq(p.mass);
  float o;
  float r = helper(a.z, o);
  float s = util::twice(r) + util::twice<float>(o) + util::times<float, 3>(1.0f);
  int arr[N][2];
  for (int j = 0; j < N; ++j) { arr[j][0] = j; arr[j][1] = j * M; }
  s += float(arr[1][1]) + weights[i % 3];
  switch (i & 3) {
    case 0: s += 1; break;
    case 1:
    case 2: s *= 2;
    default: s -= 1;
  }
  int k = 0;
  do { k++; if (k == 2) continue; } while (k < 5);
  while (true) { if (k > 10) break; k += 3; }
  s += over(1) + over(2.0f);
  s = i > 3 ? s : -s;
  bool ok = i < n && out[i] > 0;
  uint old = atomic_fetch_add_explicit(cnt, 1u, memory_order_relaxed);
  Mode md = MODE_B;
  s += float(md) + float(Op::Mul) + float(old);
  s += sizeof(Particle) + alignof(float3);
  s += as_type<float>(as_type<uint>(s));
  float4 m = max(a, 0.0f) + clamp(a, 0.0f, 1.0f) + mix(a, a, 0.5f);
  s += dot(m, a) + length(v) + precise::sqrt(s) + fast::exp(s) + metal::abs(s);
  int e;
  float fr = frexp(s, e);
  float whole;
  float fp = modf(s, whole);
  simd_vote vote = simd_ballot(ok);
  ulong bits = static_cast<ulong>(static_cast<simd_vote::vote_t>(vote));
  s += fr + fp + whole + float(e) + float(bits);
  s += simd_shuffle_xor(s, 1) + quad_sum(s) + simd_shuffle_and_fill_up(s, s, 2, 4);
  uint pop = popcount(i) + clz(i) + extract_bits(i, 0, 4);
  s += float(pop);
  device float *q = out + 1;
  q[i] = s;
  *(q + 2) = s;
  out[i] = ok ? s : 0;
}
