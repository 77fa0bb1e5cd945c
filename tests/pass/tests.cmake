# tests/pass: the fold pass (src/pass/fold.c) against golden files. Each cases/x.metal goes
# through the whole pipeline (`enigma compile x.metal --emit ir`); the kernel IR it prints
# must equal x.ir. The cases say in comments what must fold and what must not.
file(GLOB pass_cases CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cases/*.metal)
foreach(case ${pass_cases})
  get_filename_component(name ${case} NAME_WE)
  add_test(NAME pass/${name}
           COMMAND ${CMAKE_COMMAND} -DENIGMA=$<TARGET_FILE:enigma_cli> -DCASE=${case}
                   -P ${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)
endforeach()
