) ] } 42 + ;
kernel void k(device float *p [[buffer(0)]]) { p[0] = 1.0f; }
@
