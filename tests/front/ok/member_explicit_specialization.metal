// an explicit specialization of a member of a class template instance replaces that
// member's definition for the instance only (C++ [temp.expl.spec]); the defaulted argument
// may be left out; among overloads, the one with the written parameter types
#include <metal_stdlib>
using namespace metal;

template <typename T, int N = 2>
struct Scaler {
  T v;
  int factor() const thread { return N; }
  T scaled() const thread { return v * T(factor()); }
  T shift(T by) const thread { return v + by; }
  T shift(int by) const thread { return v + T(by * 100); }
};

template <>
int Scaler<float>::factor() const thread { return 7; }

template <>
float Scaler<float, 3>::shift(float by) const thread { return v - by; }

kernel void k(device float* f [[buffer(0)]], device int* n [[buffer(1)]], uint i [[thread_position_in_grid]]) {
  Scaler<float> a{f[i]};
  Scaler<float, 3> b{f[i]};
  Scaler<int> c{n[i]};
  f[i] = a.scaled() + b.scaled() + b.shift(0.5f) + b.shift(1);
  n[i] = c.scaled();
}
