template <typename T> constexpr constant bool is_x = false;
template <typename T> struct W { T v; };
template <typename T> struct W<T*> { W(int) {} T v; };
kernel void k(device float *o [[buffer(0)]]) { o[0] = is_x<float> ? 1.0f : 0.0f; }
