// An 8x8 simdgroup_load whose rows run past the end of a 7-row matrix.
// run: --threadgroups 1 --threads 32 A=rand:float32:56 C=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void copy_tile(device const float *A [[buffer(0)]],
                      device float *C [[buffer(1)]])
{
    simdgroup_float8x8 m;
    simdgroup_load(m, A, 8); // expect: out-of-bounds
    simdgroup_store(m, C, 8);
}
