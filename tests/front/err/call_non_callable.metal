kernel void k(device float *o [[buffer(0)]]) { int f = 3; o[0] = f(2); }
