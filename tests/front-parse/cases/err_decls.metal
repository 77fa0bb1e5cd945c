int;
kernel void k(device int *p [[buffer(0)]]) {
    int = 5;
    const = 3;
    int a[3 = {1, 2, 3};
    p[0] = 1;
}
namespace { kernel void inner(device int *q [[buffer(0)]]) { namespace x {} q[0] = 0; } }
template <typename... Ts> void variadic(Ts... args) {}
