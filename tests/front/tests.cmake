# tests/front: the front-end golden suite (README.md there). Every ok/x.metal and
# err/x.metal goes through the whole front end (en_compile) in front_golden, and
# run_case.sh compares the result with x.ir or x.err.
add_executable(front_golden ${CMAKE_CURRENT_LIST_DIR}/front_golden.c)
target_link_libraries(front_golden PRIVATE enigma_static)
target_include_directories(front_golden PRIVATE ${PROJECT_SOURCE_DIR}/src)
file(GLOB front_golden_cases CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/ok/*.metal
     ${CMAKE_CURRENT_LIST_DIR}/err/*.metal)
foreach(case ${front_golden_cases})
  get_filename_component(name ${case} NAME_WE)
  get_filename_component(dir ${case} DIRECTORY)
  get_filename_component(kind ${dir} NAME)
  add_test(NAME front/${kind}/${name}
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_case.sh $<TARGET_FILE:front_golden> ${case})
endforeach()
# every input the fuzzer found a crash, hang or leak with (fuzz/regress/front/) must now go
# through the front end cleanly: a diagnostic or IR, never a crash
file(GLOB front_fuzz_regress LIST_DIRECTORIES false CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/regress/front/*)
foreach(input ${front_fuzz_regress})
  get_filename_component(name ${input} NAME)
  add_test(NAME front/fuzz-regress/${name} COMMAND front_golden ${input})
  set_tests_properties(front/fuzz-regress/${name} PROPERTIES TIMEOUT 20)
endforeach()
