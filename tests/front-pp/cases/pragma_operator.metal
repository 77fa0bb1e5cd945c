#define UNROLL _Pragma("unroll 4")
UNROLL
for
_Pragma("unroll")
_Pragma("message \"hi\"")
x
_Pragma(3)
