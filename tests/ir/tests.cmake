# IR infrastructure tests: printer, verifier, inline and uniformity passes on hand-built IR.
add_executable(ir_test ${CMAKE_CURRENT_LIST_DIR}/ir_test.c)
target_link_libraries(ir_test PRIVATE enigma_static)
target_include_directories(ir_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
foreach(group print verify inline uniformity)
  add_test(NAME ir_${group} COMMAND ir_test ${group})
endforeach()
