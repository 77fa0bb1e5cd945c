kernel void k(device float *p [[buffer(0)]]) {
    flaot x = p[0];
    Vec3 a, b;
    p[1] = x;
}
void proto(Undeclared);
