# install.cmake — `make install` (cmake --install): the library (shared and static), the
# public header, the enigma CLI, the CUDA worker process, a pkg-config file and a CMake package:
#   pkg-config --cflags --libs enigma
#   find_package(enigma) ... target_link_libraries(app PRIVATE enigma::enigma)  # or enigma::enigma_static
include(CMakePackageConfigHelpers)

set(ENIGMA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/enigma)

install(TARGETS enigma enigma_static EXPORT enigmaTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS enigma_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# the CUDA worker process: libenigma finds it at <libdir>/../libexec/enigma, or at this path
install(TARGETS enigma_cuda_worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/enigma)
install(FILES ${PROJECT_SOURCE_DIR}/include/enigma.h ${PROJECT_SOURCE_DIR}/include/enigma_layout.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT enigmaTargets NAMESPACE enigma:: DESTINATION ${ENIGMA_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/enigmaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/enigmaConfig.cmake INSTALL_DESTINATION ${ENIGMA_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/enigmaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/enigmaConfig.cmake ${PROJECT_BINARY_DIR}/enigmaConfigVersion.cmake
  DESTINATION ${ENIGMA_CMAKE_DIR})

# pkg-config: relocatable, the prefix found from where the .pc file lies (so
# `cmake --install --prefix DIR` works), libdir and includedir relative to it
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ENIGMA_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH ENIGMA_PC_UP "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" ENIGMA_PC_UP "${ENIGMA_PC_UP}")
  set(ENIGMA_PC_PREFIX "\${pcfiledir}/${ENIGMA_PC_UP}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ENIGMA_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(ENIGMA_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(ENIGMA_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(ENIGMA_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/enigma.pc.in ${PROJECT_BINARY_DIR}/enigma.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/enigma.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
