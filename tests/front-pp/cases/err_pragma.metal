#pragma unroll 0
#pragma unroll x
#pragma unroll(4
#pragma unroll 4 extra
#pragma unroll()
