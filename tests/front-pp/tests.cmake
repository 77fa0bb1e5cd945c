# tests/front-pp: the preprocessor and lexer against golden files. Each cases/x.metal is
# run through pp_dump and its output must equal cases/x.expected (tokens, then
# diagnostics; see pp_dump.c for the format).
add_executable(pp_dump ${CMAKE_CURRENT_LIST_DIR}/pp_dump.c)
target_link_libraries(pp_dump PRIVATE enigma_static)
target_include_directories(pp_dump PRIVATE ${PROJECT_SOURCE_DIR}/src)
file(GLOB front_pp_cases CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cases/*.metal)
foreach(case ${front_pp_cases})
  get_filename_component(name ${case} NAME_WE)
  add_test(NAME front-pp/${name}
           COMMAND ${CMAKE_COMMAND} -DDUMP=$<TARGET_FILE:pp_dump> -DCASE=${case} -DEXT=tokens
                   -P ${CMAKE_CURRENT_LIST_DIR}/../golden_case.cmake)
endforeach()
# differential: macro expansion agrees with the system preprocessor on diff/*.c
file(GLOB front_pp_diff CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/diff/*.c)
foreach(input ${front_pp_diff})
  get_filename_component(name ${input} NAME_WE)
  add_test(NAME front-pp/diff/${name}
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/diff_cpp.sh $<TARGET_FILE:pp_dump> ${input})
endforeach()
