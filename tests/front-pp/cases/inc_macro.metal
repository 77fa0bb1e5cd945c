#define HDR <metal_stdlib>
#define QHDR "inc/plain.h"
#include HDR
#include QHDR
