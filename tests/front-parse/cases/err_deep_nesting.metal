#define P4(x) ((((x))))
#define P16(x) P4(P4(P4(P4(x))))
#define P64(x) P16(P16(P16(P16(x))))
#define P256(x) P64(P64(P64(P64(x))))
kernel void k(device int *p [[buffer(0)]]) {
    p[0] = P256(1);
}
