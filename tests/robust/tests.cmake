# tests/robust — kernels that fault, run forever or are cancelled do not take the process
# down, and the device works afterwards (issue 14). Exit code 77 = skipped.
add_executable(robust_test ${CMAKE_CURRENT_LIST_DIR}/test_robust.c)
target_link_libraries(robust_test PRIVATE enigma_static Threads::Threads)
target_include_directories(robust_test PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
add_test(NAME robust.c_api COMMAND robust_test)
set_tests_properties(robust.c_api PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
