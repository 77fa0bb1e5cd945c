#include <metal_stdlib>
#include <metal_compute>
#include <metal_simdgroup>
#include <metal_simdgroup_matrix>
#include <metal_atomic>
#include <metal_math>
#include <metal_integer>
#include <metal_common>
#include <metal_geometric>
#include <metal_relational>
#include <metal_numeric>
#include <metal_types>
#include <metal_pack>
ok
