# tests/cpu — the cpu backend (src/cpu) on kernels built as IR by hand and, once the front
# end compiles them, on .metal kernels. Each runs with its own cache folder.
enigma_c_test(cpu_test_kernels cpu.kernels ${CMAKE_CURRENT_LIST_DIR}/test_cpu_kernels.c
  TIMEOUT 600 CACHE cpu-cache INTERNAL)
enigma_c_test(cpu_test_cache cpu.cache ${CMAKE_CURRENT_LIST_DIR}/test_cpu_cache.c INTERNAL)
enigma_c_test(cpu_test_input_key cpu.input_key ${CMAKE_CURRENT_LIST_DIR}/test_cpu_input_key.c)
enigma_c_test(cpu_test_defer cpu.defer ${CMAKE_CURRENT_LIST_DIR}/test_cpu_defer.c CACHE cpu-cache)
enigma_c_test(cpu_test_seeds cpu.seeds ${CMAKE_CURRENT_LIST_DIR}/test_cpu_seeds.c CACHE cpu-cache)
target_compile_definitions(cpu_test_seeds PRIVATE ENIGMA_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
set_tests_properties(cpu.seeds PROPERTIES SKIP_RETURN_CODE 77)
# the prelude's test, built with the given extra flags
function(enigma_prelude_test target test)
  add_executable(${target} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/test_cpu_prelude.c)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PRIVATE m)
  # the helpers are instantiated for every integer type: unsigned ones compare with 0
  target_compile_options(${target} PRIVATE -Wno-type-limits ${ARGN})
  add_test(NAME ${test} COMMAND ${target})
endfunction()
enigma_prelude_test(cpu_test_prelude cpu.prelude)
# again for this machine's own instructions, as kernels are built (-march=native): the
# paths under #if __AVX512F__ and __F16C__ (enk_mat_block's and enk_mat_mul2's 16-wide rows
# among them)
include(CheckCCompilerFlag)
check_c_compiler_flag(-march=native ENIGMA_HAS_MARCH_NATIVE)
if(ENIGMA_HAS_MARCH_NATIVE)
  enigma_prelude_test(cpu_test_prelude_native cpu.prelude.native -march=native)
endif()
# the same kernels with every statement outlined into a function of its own
# (src/cpu/emit_outline.c; large kernels only, by default): the outlined C must compute
# what the inline C does
add_test(NAME cpu.kernels.outlined COMMAND cpu_test_kernels)
set_tests_properties(cpu.kernels.outlined PROPERTIES TIMEOUT 600
  ENVIRONMENT "ENIGMA_CPU_OUTLINE=1;ENIGMA_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cpu-cache-outlined")
