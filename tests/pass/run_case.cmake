# run_case.cmake — one golden case of the passes after inlining: CASE is x.metal; beside it
# x.ir, what `enigma compile x.metal --emit ir` must print (run in the case's folder).
get_filename_component(dir ${CASE} DIRECTORY)
get_filename_component(name ${CASE} NAME_WE)
get_filename_component(file ${CASE} NAME)
execute_process(COMMAND ${ENIGMA} compile ${file} --emit ir WORKING_DIRECTORY ${dir}
                OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "enigma compile ${file} failed (${rc}): ${errors}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../golden_compare.cmake)
golden_compare(${name} ${dir}/${name}.ir "${actual}")
