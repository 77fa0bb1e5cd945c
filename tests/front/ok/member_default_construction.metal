// Members of class type are default-initialised when a constructor's initializer list leaves
// them out, and in `S x;` of a struct without constructors: their own constructors run, with
// their default member initializers (C++ [class.base.init]); arrays element by element.
#include <metal_stdlib>
using namespace metal;
struct Acc {
    float2 v[2] = {float2(0)};
    int n;
    Acc() thread { n = 7; }
};
struct Block {
    Acc acc;
    Acc pair[2];
    short tag;
    Block(short t) thread : tag(t) {}
};
struct Plain {
    Acc acc;
    float scale = 2.0f;
};
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    Block b(3);
    Plain p;
    o[i] = b.acc.v[1].x + float(b.pair[1].n) + float(b.tag) + p.scale + float(p.acc.n);
}
