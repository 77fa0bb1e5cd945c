struct alignas(16) Aligned { float x; };
struct Fields {
    alignas(8) int a;
    alignas(float4) float b;
};
kernel void k(device Aligned *p [[buffer(0)]]) {
    alignas(16) float local[4];
    p[0].x = local[0];
}
