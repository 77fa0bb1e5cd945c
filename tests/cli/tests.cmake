# tests/cli — the enigma command line. Its behaviour tests are pytest files
# (tests/cli/test_*.py), which scripts/check.sh runs with ENIGMA_CLI=build/enigma;
# ctest runs the install test.
add_test(NAME cli.install COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${PROJECT_BINARY_DIR}
  ${PROJECT_SOURCE_DIR} ${ENIGMA_SANITIZE})
set_tests_properties(cli.install PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)

# tools/npy.c on its own
add_executable(cli_test_npy ${CMAKE_CURRENT_LIST_DIR}/test_npy.c ${PROJECT_SOURCE_DIR}/tools/npy.c)
target_include_directories(cli_test_npy PRIVATE ${PROJECT_SOURCE_DIR}/tools)
add_test(NAME cli.npy COMMAND cli_test_npy)

# `make demo`: seed 004's two-stage reduction through the CLI, checked against its reference
add_test(NAME cli.demo COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/demo.sh ${PROJECT_BINARY_DIR})
set_tests_properties(cli.demo PROPERTIES TIMEOUT 300 DEPENDS cli.install)
