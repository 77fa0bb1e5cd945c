# golden_compare.cmake — the last step of every golden case (golden_case.cmake,
# front-check/run_case.cmake): the output must equal the expected file byte for byte; when
# it does not, show a unified diff against it and fail naming the case.
function(golden_compare name expected_file actual)
  file(READ ${expected_file} expected)
  if(NOT actual STREQUAL expected)
    string(RANDOM LENGTH 8 tag)
    set(tmp ${CMAKE_CURRENT_BINARY_DIR}/${name}.${tag}.actual)
    file(WRITE ${tmp} "${actual}")
    execute_process(COMMAND diff -u ${expected_file} ${tmp})
    file(REMOVE ${tmp})
    message(FATAL_ERROR "${name}: output differs from ${expected_file}")
  endif()
endfunction()
