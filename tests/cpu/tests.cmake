# tests/cpu — the cpu backend (src/cpu) on kernels built as IR by hand and, once the front
# end compiles them, on .metal kernels. Each runs with its own cache folder.
add_executable(cpu_test_kernels ${CMAKE_CURRENT_LIST_DIR}/test_cpu_kernels.c)
target_link_libraries(cpu_test_kernels PRIVATE enigma_static)
target_include_directories(cpu_test_kernels PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
add_test(NAME cpu.kernels COMMAND cpu_test_kernels)
set_tests_properties(cpu.kernels PROPERTIES TIMEOUT 600
  ENVIRONMENT "ENIGMA_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cpu-cache")
add_executable(cpu_test_cache ${CMAKE_CURRENT_LIST_DIR}/test_cpu_cache.c)
target_link_libraries(cpu_test_cache PRIVATE enigma_static)
target_include_directories(cpu_test_cache PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
add_test(NAME cpu.cache COMMAND cpu_test_cache)
set_tests_properties(cpu.cache PROPERTIES TIMEOUT 300)
add_executable(cpu_test_input_key ${CMAKE_CURRENT_LIST_DIR}/test_cpu_input_key.c)
target_link_libraries(cpu_test_input_key PRIVATE enigma_static)
target_include_directories(cpu_test_input_key PRIVATE ${PROJECT_SOURCE_DIR}/include)
add_test(NAME cpu.input_key COMMAND cpu_test_input_key)
set_tests_properties(cpu.input_key PROPERTIES TIMEOUT 300)
add_executable(cpu_test_defer ${CMAKE_CURRENT_LIST_DIR}/test_cpu_defer.c)
target_link_libraries(cpu_test_defer PRIVATE enigma_static)
target_include_directories(cpu_test_defer PRIVATE ${PROJECT_SOURCE_DIR}/include)
add_test(NAME cpu.defer COMMAND cpu_test_defer)
set_tests_properties(cpu.defer PROPERTIES TIMEOUT 300
  ENVIRONMENT "ENIGMA_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cpu-cache")
add_executable(cpu_test_seeds ${CMAKE_CURRENT_LIST_DIR}/test_cpu_seeds.c)
target_link_libraries(cpu_test_seeds PRIVATE enigma_static)
target_include_directories(cpu_test_seeds PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(cpu_test_seeds PRIVATE ENIGMA_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME cpu.seeds COMMAND cpu_test_seeds)
set_tests_properties(cpu.seeds PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "ENIGMA_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cpu-cache")
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
