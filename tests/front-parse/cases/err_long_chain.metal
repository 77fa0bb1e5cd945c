// 4096 terms: more links than a chain may have
#define P4(x) x + x + x + x
#define P4096(x) P4(P4(P4(P4(P4(P4(x))))))
#define P1024(x) P4(P4(P4(P4(P4(x)))))
kernel void k(device int *p [[buffer(0)]]) {
    p[0] = P1024(1);
    p[1] = P4096(1);
}
