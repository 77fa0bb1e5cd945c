# tests/runtime — C tests of the public API (include/enigma.h). Exit code 77 = skipped:
# the part of enigma the test needs (front end, cpu backend) is not built yet.
foreach(t test_errors test_buffers test_kernels test_check_sink test_checked test_checked_memory test_batches)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    add_executable(rt_${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    target_link_libraries(rt_${t} PRIVATE enigma_static)
    target_include_directories(rt_${t} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
    add_test(NAME runtime.${t} COMMAND rt_${t})
    set_tests_properties(runtime.${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endif()
endforeach()
