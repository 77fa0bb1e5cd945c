# tests/front-check: the checker against golden files. Each cases/x.metal is preprocessed,
# parsed and checked by check_dump; the output must equal x.ir (the verified IR after the
# checker, then diagnostics) or x.err (the diagnostics only). Every examples/*.metal (the
# seed kernels among them) and the parser's seed kernels (tests/front-parse/seeds) must go
# through the whole pipeline (en_compile) with no error.
add_executable(check_dump ${CMAKE_CURRENT_LIST_DIR}/check_dump.c)
target_link_libraries(check_dump PRIVATE enigma_static)
target_include_directories(check_dump PRIVATE ${PROJECT_SOURCE_DIR}/src)
file(GLOB front_check_cases CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cases/*.metal)
foreach(case ${front_check_cases})
  get_filename_component(name ${case} NAME_WE)
  add_test(NAME front-check/${name}
           COMMAND ${CMAKE_COMMAND} -DDUMP=$<TARGET_FILE:check_dump> -DCASE=${case}
                   -P ${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)
endforeach()
file(GLOB front_check_seeds CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/examples/*.metal
     ${PROJECT_SOURCE_DIR}/tests/front-parse/seeds/*.metal)
foreach(case ${front_check_seeds})
  get_filename_component(name ${case} NAME_WE)
  get_filename_component(dir ${case} DIRECTORY)
  get_filename_component(group ${dir} NAME)
  add_test(NAME front-check/${group}/${name}
           COMMAND ${CMAKE_COMMAND} -DDUMP=$<TARGET_FILE:check_dump> -DCASE=${case} -DCOMPILE=1
                   -P ${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)
endforeach()

# the front end stays linear on generated kernels: 5,000 statements (made at test time)
# compile in a fraction of a second. The test itself fails when N/4 -> N statements grows
# the compile time by more than 9x (quadratic: 16x); the timeout is only the backstop for
# worse, generous because scripts/valgrind.sh runs the test about 50x slower (32 s)
add_executable(large_kernel_test ${CMAKE_CURRENT_LIST_DIR}/large_kernel_test.c)
target_link_libraries(large_kernel_test PRIVATE enigma_static)
target_include_directories(large_kernel_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME front-check/large_kernel COMMAND large_kernel_test 5000)
set_tests_properties(front-check/large_kernel PROPERTIES TIMEOUT 120)
