# tests/check — checked mode. The checking runtime's hooks driven directly (C); the
# corpus of buggy and correct kernels runs through the CLI with pytest
# (tests/check/test_*.py, with ENIGMA_CLI set as for tests/cli).
add_executable(check_test_rt ${CMAKE_CURRENT_LIST_DIR}/test_check_rt.c)
target_link_libraries(check_test_rt PRIVATE enigma_static)
target_include_directories(check_test_rt PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
add_test(NAME check.runtime COMMAND check_test_rt)
