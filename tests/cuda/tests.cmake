# tests/cuda — the cuda backend without a GPU: every kernel's generated CUDA C compiled by
# NVRTC for sm_90 (a codegen regression fails here), the prelude kept in sync, and the
# cuda-unavailable path. Exit code 77 = skipped (NVRTC or the CUDA headers absent).
# On a GPU machine, scripts/gpu.sh runs the whole suite against the cuda backend.
add_executable(test_cuda ${CMAKE_CURRENT_LIST_DIR}/test_cuda.c)
target_link_libraries(test_cuda PRIVATE enigma_static)
target_include_directories(test_cuda PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(test_cuda PRIVATE ENIGMA_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                          ENIGMA_TEST_CACHE_DIR="${CMAKE_BINARY_DIR}/cuda-test-cache")
add_executable(cuda_emit ${CMAKE_CURRENT_LIST_DIR}/cuda_emit.c)
target_link_libraries(cuda_emit PRIVATE enigma_static)
target_include_directories(cuda_emit PRIVATE ${PROJECT_SOURCE_DIR}/src)

foreach(t unavailable prelude hand offline)
  add_test(NAME cuda.${t} COMMAND test_cuda ${t})
  set_tests_properties(cuda.${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
add_test(NAME cuda.shapes COMMAND test_cuda shapes ${CMAKE_CURRENT_LIST_DIR}/kernels/matrix_pairs.metal
                                                 ${CMAKE_CURRENT_LIST_DIR}/kernels/matrix_align.metal)
set_tests_properties(cuda.shapes PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME cuda.files COMMAND test_cuda files ${PROJECT_SOURCE_DIR}/examples ${PROJECT_SOURCE_DIR}/tests)
set_tests_properties(cuda.files PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# on a GPU: the Metal rules the CUDA mapping must keep, run for real (skips without a GPU)
add_executable(test_cuda_gpu ${CMAKE_CURRENT_LIST_DIR}/test_gpu.c)
target_link_libraries(test_cuda_gpu PRIVATE enigma) # the shared library: every backend object is in it
add_test(NAME cuda.gpu COMMAND test_cuda_gpu)
set_tests_properties(cuda.gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
