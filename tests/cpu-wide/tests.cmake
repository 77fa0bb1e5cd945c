# tests/cpu-wide — kernels with threadgroup barriers that wide mode runs (src/cpu/emit_wide.c)
# against references computed here from fresh random inputs, and the generated C checked
# for the wide block where it belongs and its absence where it does not.
add_executable(cpu_test_wide ${CMAKE_CURRENT_LIST_DIR}/test_cpu_wide.c)
target_link_libraries(cpu_test_wide PRIVATE enigma_static)
target_include_directories(cpu_test_wide PRIVATE ${PROJECT_SOURCE_DIR}/include)
add_test(NAME cpu.wide COMMAND cpu_test_wide)
set_tests_properties(cpu.wide PROPERTIES TIMEOUT 300
  ENVIRONMENT "ENIGMA_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cpu-wide-cache")
