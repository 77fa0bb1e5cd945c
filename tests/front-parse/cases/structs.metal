struct Particle {
    float3 pos;
    packed_float3 vel;
    float mass [[id(0)]];
    int flags : 4;
    uint a, b[2];
};
struct Node;
struct Pair { int first; int second; } global_pair;
kernel void k(device Particle *ps [[buffer(0)]], constant Pair &pr [[buffer(1)]]) {
    Particle p = ps[0];
    p.pos.x += pr.first;
    struct Particle q = {float3(0.0f), packed_float3(1.0f), 2.0f, 1, 0u, {1u, 2u}};
    ps[1] = q;
    device Particle *pp = &ps[2];
    pp->mass = (*pp).mass * 2.0f;
}
