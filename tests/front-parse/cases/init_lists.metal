struct S { int a; float2 b; int c[2]; };
kernel void k(device S *out [[buffer(0)]]) {
    S s = {1, {2.0f, 3.0f}, {4, 5}};
    S t{1, float2(0.0f), {}};
    S u = {};
    int arr[] = {1, 2, 3,};
    out[0] = S{7, float2(1.0f, 2.0f), {8, 9}};
    out[1] = s;
    float2 f = {1.0f, 2.0f};
    f = {3.0f, 4.0f};
}
