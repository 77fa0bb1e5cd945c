// range-based for over arrays, by value and by reference, with break
#include <metal_stdlib>
using namespace metal;
constant int rot[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
kernel void k(device int* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  int s = 0;
  for (auto r : rot[i % 2]) s += r;
  float a[3] = {1, 2, 3};
  for (thread auto& x : a) x *= 2.0f;
  for (float x : a) { if (x > 5.0f) break; s += int(x); }
  o[i] = s;
}
