// auto references: thread auto& r = place; thread const auto& c = value
struct S { float v[2]; thread float& at(int i) { return v[i]; } };
kernel void k(device float* o [[buffer(0)]]) { S s; s.v[0] = 1; s.v[1] = 2; thread auto& r = s.at(1); r = 5.0f; thread const auto& c = s.v[0] + 1.0f; const auto x = s.v[1]; o[0] = s.v[1] + c + x; }
