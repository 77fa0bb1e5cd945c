struct VOut { float4 pos [[position]]; };
vertex VOut vmain(uint vid [[vertex_id]]) { VOut o; return o; }
fragment float4 fmain(VOut in [[stage_in]]) { return in.pos; }
kernel void ok(device float *p [[buffer(0)]]) { p[0] = 1.0f; }
