kernel void k(device float *f [[buffer(0)]], device int *i [[buffer(1)]]) {
    float x = (float)i[0];
    int y = static_cast<int>(f[0]);
    device uint *u = reinterpret_cast<device uint *>(i);
    const device int *ci = const_cast<const device int *>(i);
    uint bits = as_type<uint>(x);
    float back = metal::as_type<float>(bits);
    half2 hh = as_type<half2>(x);
    f[1] = float(y) + (float)(y + 1) * (int)x;
    f[2] = sizeof(float4) + sizeof x + alignof(float3) + sizeof(i[0]);
    int z = (int)-x;
}
