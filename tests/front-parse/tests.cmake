# tests/front-parse: the parser against golden files. Each cases/x.metal and seeds/x.metal
# is preprocessed and parsed by parse_dump; the output must equal x.ast (tree dump, then
# diagnostics) or x.err (diagnostics only). seeds/ holds every MSL kernel of seeds 003 and
# 004, the 004 fragments wrapped into whole kernels; their .ast files must show no error.
add_executable(parse_dump ${CMAKE_CURRENT_LIST_DIR}/parse_dump.c)
target_link_libraries(parse_dump PRIVATE enigma_static)
target_include_directories(parse_dump PRIVATE ${PROJECT_SOURCE_DIR}/src)
file(GLOB front_parse_cases CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cases/*.metal
     ${CMAKE_CURRENT_LIST_DIR}/seeds/*.metal)
foreach(case ${front_parse_cases})
  get_filename_component(name ${case} NAME_WE)
  get_filename_component(dir ${case} DIRECTORY)
  get_filename_component(group ${dir} NAME)
  add_test(NAME front-parse/${group}/${name}
           COMMAND ${CMAKE_COMMAND} -DDUMP=$<TARGET_FILE:parse_dump> -DCASE=${case} -DEXT=ast
                   -P ${CMAKE_CURRENT_LIST_DIR}/../golden_case.cmake)
endforeach()

# en_parse at its edges (no EOF, pragma tokens, node locations)
add_executable(parse_api_test ${CMAKE_CURRENT_LIST_DIR}/parse_api_test.c)
target_link_libraries(parse_api_test PRIVATE enigma_static)
target_include_directories(parse_api_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME front-parse/api COMMAND parse_api_test)
