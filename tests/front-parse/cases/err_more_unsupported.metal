#include <metal_stdlib>
using namespace metal;
struct Px { half4 c [[color(0)]]; };
kernel void k(imageblock<Px> ib, device float *p [[buffer(0)]],
              visible_function_table<float(float)> table [[buffer(1)]],
              primitive_acceleration_structure accel [[buffer(2)]]) {
    raytracing::ray r;
    intersector<triangle_data> isect;
    p[0] = dynamic_cast<float>(p[1]);
    mesh_grid_properties mgp;
}
