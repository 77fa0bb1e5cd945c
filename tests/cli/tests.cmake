# tests/cli — the enigma command line. The behaviour tests are pytest files
# (tests/cli/test_*.py, run by scripts/check.sh with ENIGMA_CLI set); ctest runs them too
# when python3 with pytest and numpy is present, plus the install test.
add_test(NAME cli.install COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.install PROPERTIES TIMEOUT 300)
