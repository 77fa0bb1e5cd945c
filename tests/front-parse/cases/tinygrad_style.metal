// the shape of kernels tinygrad's Metal renderer emits
#include <metal_stdlib>
using namespace metal;
kernel void r_16_4(device float* data0, const device float* data1, const device half* data2,
                   uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  threadgroup float temp0[16];
  int gidx0 = gid.x; /* 16 */
  int lidx0 = lid.x; /* 4 */
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 4; ridx0++) {
    float4 val0 = float4(*((device float4*)((data1+(gidx0*16)+(ridx0*4)))));
    half4 val1 = *((device half4*)(data2+ridx0*4));
    acc0 = (acc0+val0.x+val0.y+val0.z+(float)(val1.w));
  }
  *(temp0+lidx0) = acc0;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  bool alu0 = (((bool)(lidx0))!=1);
  *(data0+gidx0) = (alu0?acc0:(float)(temp0[0]));
  simdgroup_float8x8 mat_a, mat_b, mat_c;
  mat_a.thread_elements()[0] = float(acc0); mat_a.thread_elements()[1] = float(acc0);
  mat_c = __metal_simdgroup_matrix_8x8_multiply_accumulate(mat_a, mat_b, mat_c, simdgroup_float8x8());
  data0[0] = as_type<float>((uint)(0x7f800000u)) + precise::exp2(acc0);
}
