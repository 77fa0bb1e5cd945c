template <typename T> struct S { T v; };
template <typename T> struct S<T*> { T v; };
template <typename T> constexpr constant bool is_x = false;
kernel void k(device float *o [[buffer(0)]]) { o[0] = 1.0f; }
