# tests/cpu-affine — the cpu backend's lane-affine access fast paths (src/cpu/emit_expr.c,
# lane_form) against references computed here, over group shapes that take them (1-D,
# widths that are multiples of 16) and shapes that must not (8, 24, edge groups).
enigma_c_test(cpu_test_affine cpu.affine ${CMAKE_CURRENT_LIST_DIR}/test_cpu_affine.c CACHE cpu-affine-cache)
