# tests/cuda-remote — recovery from kernel faults through the CUDA worker process
# (src/cuda/remote.c, worker.c), without a GPU: fake_libcuda.so stands in for the driver
# (ENIGMA_LIBCUDA; the worker inherits it) with faults as sticky as the real driver's, and
# the real NVRTC compiles the kernels (exit code 77 = skipped where NVRTC is absent).
add_library(fake_libcuda MODULE ${CMAKE_CURRENT_LIST_DIR}/fake_libcuda.c)
set_target_properties(fake_libcuda PROPERTIES PREFIX "" OUTPUT_NAME fake_libcuda)
target_include_directories(fake_libcuda PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(fake_libcuda PRIVATE Threads::Threads)

add_executable(test_cuda_remote ${CMAKE_CURRENT_LIST_DIR}/test_remote.c)
target_link_libraries(test_cuda_remote PRIVATE enigma_static)
add_dependencies(test_cuda_remote fake_libcuda enigma_cuda_worker)

foreach(t recover isolate missing no-param-info two-devices threads timeout)
  add_test(NAME cuda-remote.${t} COMMAND test_cuda_remote ${t})
  set_tests_properties(cuda-remote.${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "ENIGMA_LIBCUDA=$<TARGET_FILE:fake_libcuda>;ENIGMA_CUDA_WORKER=$<TARGET_FILE:enigma_cuda_worker>;ENIGMA_CACHE_DIR=${CMAKE_BINARY_DIR}/cuda-remote-cache")
endforeach()
