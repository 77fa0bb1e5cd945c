// A void function that calls itself as its last act (MLX's LoopedElemToLoc::next) runs as a
// loop: the arguments become the parameters and the body starts again.
#include <metal_stdlib>
using namespace metal;
struct Walker {
    int index;
    int carries;
    void step(int n, int size) thread {
        index += n;
        if (index >= size) {
            int extra = index - size;
            index = 0;
            carries++;
            if (extra > 0) {
                step(extra, size);
            }
        }
    }
};
kernel void k(device int *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    Walker w = {int(i) % 5, 0};
    w.step(int(i), 5);
    o[i] = w.index * 100 + w.carries;
}
