// An array inside a local struct, written and read through a reference by a helper with
// an index that is one too large for some threads.
// run: --grid 64 --threads 32 k=rand:int32:64:3:7 out=zeros:64
#include <metal_stdlib>
using namespace metal;

struct Hist {
    int bins[6];
    int total;
};

static void add(thread Hist &h, int b) {
    h.bins[b] += 1; // expect: out-of-bounds
    h.total += 1;
}

kernel void histogram(device const int *k [[buffer(0)]],
                      device int *out [[buffer(1)]],
                      uint gid [[thread_position_in_grid]])
{
    Hist h = {{0, 0, 0, 0, 0, 0}, 0};
    add(h, k[gid]);
    out[gid] = h.total * 100 + h.bins[k[gid] % 6];
}
