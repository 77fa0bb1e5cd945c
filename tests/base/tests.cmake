# tests/base — the shared helpers of src/base that the other areas do not reach directly.
add_executable(base_test_buf ${CMAKE_CURRENT_LIST_DIR}/test_buf.c)
target_link_libraries(base_test_buf PRIVATE enigma_static)
target_include_directories(base_test_buf PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME base.buf COMMAND base_test_buf)
