// a constructor that does more than set fields from its arguments builds no program-scope constant
#include <metal_stdlib>
using namespace metal;
struct Counter {
    int n;
    Counter(int start) thread { for (int i = 0; i < start; i++) n += i; }
};
constant Counter c = Counter(3);
kernel void k(device int *o [[buffer(0)]]) { o[0] = c.n; }
