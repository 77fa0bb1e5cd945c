struct S { int a; int b }
kernel void k1(device int *p [[buffer(0)]]) {
    p[0] = 1 +;
}
kernel void k2(device int *p [[buffer(0)]]) {
    p[0] = );
    p[1] = 2;
}
int g = ;
kernel void k3(device int *p [[buffer(0)]]) { p[0] = 3; }
