// the shape of code tinygrad generates: casts of buffer pointers, C casts, metal:: calls
#include <metal_stdlib>
using namespace metal;
kernel void r_16_4(device float* data0, const device float* data1, const device half* data2, uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  threadgroup float temp0[16];
  int gidx0 = gid.x; /* 16 */
  int lidx0 = lid.x;
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 4; ridx0++) {
    float4 val0 = *((device float4*)((data1+(gidx0*16)+(ridx0*4))));
    half2 h = *((device half2*)(data2 + ridx0 * 2));
    acc0 = (acc0+val0.x+val0.y+val0.z+val0.w + (float)(h.x));
  }
  temp0[lidx0] = acc0;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (((bool)(lidx0<1))) {
    float acc1 = 0.0f;
    for (int ridx1 = 0; ridx1 < 16; ridx1++) {
      float val1 = temp0[ridx1];
      acc1 = (acc1+val1);
    }
    *(data0+gidx0) = metal::exp2(acc1 * 1.4426950408889634f) + (acc1<0.0f?-acc1:acc1) + as_type<float>((uint)(0x3f800000u));
  }
}
kernel void wmma(device float* data0, const device float* data1, const device float* data2, uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  simdgroup_float8x8 mat_a, mat_b, mat_c;
  float2 c = float2(0.0f, 0.0f);
  simdgroup_multiply_accumulate(mat_c, mat_a, mat_b, mat_c);
}
