# golden_case.cmake — one golden case of a front-end stage: CASE is x.metal; beside it
# x.EXT (the stage's whole dump, then the diagnostics: EXT is "tokens" for the
# preprocessor, "ast" for the parser) or x.err (the diagnostics only). DUMP runs in the
# case's folder, so diagnostics name the file as "x.metal".
get_filename_component(dir ${CASE} DIRECTORY)
get_filename_component(name ${CASE} NAME_WE)
get_filename_component(file ${CASE} NAME)
if(EXISTS ${dir}/${name}.${EXT})
  set(expected_file ${dir}/${name}.${EXT})
  set(mode "")
elseif(EXISTS ${dir}/${name}.err)
  set(expected_file ${dir}/${name}.err)
  set(mode "--diags")
else()
  message(FATAL_ERROR "${name}: neither ${name}.${EXT} nor ${name}.err exists")
endif()
execute_process(COMMAND ${DUMP} ${mode} ${file} WORKING_DIRECTORY ${dir}
                OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${DUMP} ${file} failed (${rc}): ${errors}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/golden_compare.cmake)
golden_compare(${name} ${expected_file} "${actual}")
