[[visible]] float helper(float x) { return x; }
[[intersection(triangle)]] bool hit() { return true; }
[[mesh]] void m() {}
[[object]] void o() {}
kernel void k(device float *p [[buffer(0)]]) { p[0] = helper(1.0f); }
