struct Base { int a; };
struct Derived : Base { int b; };
kernel void k(device float *p [[buffer(0)]], threadgroup_imageblock float *ib,
              instance_acceleration_structure accel [[buffer(1)]]) {
    struct { int x; int y; } pt = {.x = 1, .y = 2};
    for (float v : p) { }
    int *q = new int;
    p[0] = 1.0f;
}
