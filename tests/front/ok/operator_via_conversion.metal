// built-in operators on structs that convert to numbers (no user operator fits)
template <typename T, T v> struct ic { constexpr operator T() const { return v; } };
kernel void k(device float* o [[buffer(0)]]) { short s = 3; ic<int, 4> four; o[0] = float(s * four) + float(four + 1); }
