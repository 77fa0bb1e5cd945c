# tests/cpu-interleave — grid-stride loops whose SIMD groups run interleaved (src/cpu/emit_region.c,
# emit_interleaved_loop) against references computed here, and the generated C checked
# for the phase where it belongs and its absence where it does not.
add_executable(cpu_test_interleave ${CMAKE_CURRENT_LIST_DIR}/test_cpu_interleave.c)
target_link_libraries(cpu_test_interleave PRIVATE enigma_static)
target_include_directories(cpu_test_interleave PRIVATE ${PROJECT_SOURCE_DIR}/include)
add_test(NAME cpu.interleave COMMAND cpu_test_interleave)
set_tests_properties(cpu.interleave PROPERTIES TIMEOUT 300
  ENVIRONMENT "ENIGMA_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cpu-interleave-cache")
