# run_case.cmake — one golden checker case: CASE is x.metal; beside it x.ir (the IR after
# the checker, then the diagnostics), x.err (the diagnostics only) or x.cerr (the
# diagnostics of the whole pipeline). DUMP runs in the
# case's folder, so diagnostics name the file as "x.metal". With COMPILE set, the case
# must instead go through the whole pipeline (en_compile) with no error.
get_filename_component(dir ${CASE} DIRECTORY)
get_filename_component(name ${CASE} NAME_WE)
get_filename_component(file ${CASE} NAME)
if(COMPILE)
  execute_process(COMMAND ${DUMP} --compile ${file} WORKING_DIRECTORY ${dir}
                  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT actual MATCHES "^ok: [1-9]")
    message(FATAL_ERROR "${name} does not compile cleanly (${rc}):\n${actual}${errors}")
  endif()
  return()
endif()
if(EXISTS ${dir}/${name}.ir)
  set(expected_file ${dir}/${name}.ir)
  set(mode "")
elseif(EXISTS ${dir}/${name}.err)
  set(expected_file ${dir}/${name}.err)
  set(mode "--diags")
elseif(EXISTS ${dir}/${name}.cerr)
  # errors only the whole pipeline finds (the inline pass: recursion)
  set(expected_file ${dir}/${name}.cerr)
  set(mode "--compile")
else()
  message(FATAL_ERROR "${name}: none of ${name}.ir, ${name}.err, ${name}.cerr exists")
endif()
execute_process(COMMAND ${DUMP} ${mode} ${file} WORKING_DIRECTORY ${dir}
                OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 AND NOT mode STREQUAL "--compile")
  message(FATAL_ERROR "${DUMP} ${file} failed (${rc}): ${errors}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../golden_compare.cmake)
golden_compare(${name} ${expected_file} "${actual}")
