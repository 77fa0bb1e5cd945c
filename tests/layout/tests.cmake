# tests/layout — the layout algebra's C API (include/enigma_layout.h); the property tests
# against pycute are python/tests/test_layout.py
add_executable(layout_test ${CMAKE_CURRENT_LIST_DIR}/test_layout.c)
target_link_libraries(layout_test PRIVATE enigma_static)
target_include_directories(layout_test PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
add_test(NAME layout.c_api COMMAND layout_test)
