# tests/cpu-affine — the cpu backend's lane-affine access fast paths (src/cpu/emit_expr.c,
# lane_form) against references computed here, over group shapes that take them (1-D,
# widths that are multiples of 16) and shapes that must not (8, 24, edge groups).
add_executable(cpu_test_affine ${CMAKE_CURRENT_LIST_DIR}/test_cpu_affine.c)
target_link_libraries(cpu_test_affine PRIVATE enigma_static)
target_include_directories(cpu_test_affine PRIVATE ${PROJECT_SOURCE_DIR}/include)
add_test(NAME cpu.affine COMMAND cpu_test_affine)
set_tests_properties(cpu.affine PROPERTIES TIMEOUT 300
  ENVIRONMENT "ENIGMA_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cpu-affine-cache")
