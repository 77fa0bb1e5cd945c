// variadic templates are declared (parsed, never instantiated) beside code that does not call them
#include <metal_stdlib>
using namespace metal;
template <typename T> T sum(T x) { return x; }
template <typename T, typename... Us> auto sum(T x, Us... us) { return x + sum(us...); }
template <typename... Ts> struct make_void { typedef void type; };
template <typename... Ts> using void_t = typename make_void<Ts...>::type;
struct os_log { template <typename... Args> void log_debug(constant char*, Args...) const thread {} };
kernel void k(device float* o [[buffer(0)]]) { o[0] = sum(2.0f); }
