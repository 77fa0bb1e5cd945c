// member function templates chosen by enable_if_t in the return type; a template<> member
// beside its template; a call of an empty variadic member template (MLX's os_log) does nothing
#include <metal_stdlib>
using namespace metal;
struct os_log { template <typename... Args> void log_debug(constant char*, Args...) const {} };
constant os_log logger = {};
struct Rem {
  template <typename T> enable_if_t<is_integral_v<T>, T> operator()(T x, T y) { return x % y; }
  template <typename T> enable_if_t<!is_integral_v<T>, T> operator()(T x, T y) { return fmod(x, y); }
  template <> bool operator()(bool x, bool y) { return x; }
};
kernel void k(device float* o [[buffer(0)]], device int* q [[buffer(1)]]) {
  logger.log_debug("x=%d", q[0]);
  o[0] = Rem()(7.5f, 2.0f);
  q[0] = Rem()(7, 3) + int(Rem()(true, false));
}
