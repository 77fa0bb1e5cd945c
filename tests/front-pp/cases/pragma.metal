#pragma unroll
for
#pragma unroll 8
#pragma unroll(2)
  #  pragma   unroll   16
#pragma clang loop unroll(full)
#pragma METAL internal
#pragma once
#pragma
x
