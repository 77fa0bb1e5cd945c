#include <metal_stdlib>
using namespace metal;
// member functions: `this` points into the object's address space, one copy per space used
struct Acc {
    float sum;
    uint count;
    void add(float v) { sum += v; count++; }
    float mean() const { return count ? sum / float(count) : 0.0f; }
    float scaled(float k = 2.0f) const { return mean() * k + this->sum; }
};
kernel void k(device Acc *accs [[buffer(0)]], device float *out [[buffer(1)]], constant Acc &c [[buffer(2)]],
              uint tid [[thread_position_in_grid]]) {
    Acc a = {0.0f, 0u};
    a.add(1.0f);
    a.add(out[tid]);
    accs[tid].add(3.0f);
    out[tid] = a.mean() + accs[tid].scaled() + c.mean();
}
