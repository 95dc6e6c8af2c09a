# `cmake --install` (and `make install PREFIX=...`) and the .deb (CPack): ream installs like a
# tool. Layout under the prefix:
#   bin/ream                                 the binary (`ream --version` names its commit)
#   lib/ream/libream-overhead.so             the LogGP overhead o (FindOverheadLibrary looks here)
#   lib/ream/ream-mcf                        the batch suite's mcf program (ream batch mcf)
#   lib/ream/ream-user                       creates the workload user (the .deb's postinst runs it)
#   share/ream/report-assets/node_modules/   the chart libraries `ream report` inlines, found
#                                            relative to the binary (cli/cmd_report.cc)
#   share/ream/examples/                     the shipped specs
#   share/doc/ream/                          README.md and docs/
include(GNUInstallDirs)

install(TARGETS ream RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The batch suite's mcf program (ream batch mcf finds it in lib/ream/ beside bin/).
install(TARGETS ream-mcf RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR}/ream)
install(TARGETS ream_overhead LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ream)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/scripts/ream-user DESTINATION ${CMAKE_INSTALL_LIBDIR}/ream)

# Only what LoadHtmlAssets reads (each library's minified build and package.json) and the
# licences, not the whole npm tree (the headless-browser driver of the tests stays out).
set(REAM_ASSETS ${CMAKE_SOURCE_DIR}/report-assets/node_modules)
foreach(pkg vega vega-lite vega-embed)
  if(EXISTS ${REAM_ASSETS}/${pkg}/build/${pkg}.min.js)
    install(FILES ${REAM_ASSETS}/${pkg}/package.json ${REAM_ASSETS}/${pkg}/LICENSE
            DESTINATION ${CMAKE_INSTALL_DATADIR}/ream/report-assets/node_modules/${pkg})
    install(FILES ${REAM_ASSETS}/${pkg}/build/${pkg}.min.js
            DESTINATION ${CMAKE_INSTALL_DATADIR}/ream/report-assets/node_modules/${pkg}/build)
  else()
    message(WARNING "report assets missing (${REAM_ASSETS}/${pkg}): run scripts/install-deps "
                    "before installing, or `ream report` will need --assets")
  endif()
endforeach()

install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ream/examples
        USE_SOURCE_PERMISSIONS)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The .deb: `cpack -G DEB` in the build tree (scripts/check-deb builds and installs it in a
# fresh Debian 12 chroot). Library dependencies come from dpkg-shlibdeps; ip and tc from
# iproute2; the postinst creates the workload user.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ream)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "ream maintainers <ream@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Characterizes server workloads as black boxes: partitions, open-loop load, analysis")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# The RelWithDebInfo binary is ~120 MB with its debug info; the package ships it stripped.
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "iproute2, passwd")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "memcached, redis-server, nginx-light")
configure_file(${CMAKE_SOURCE_DIR}/cmake/deb-postinst.in ${CMAKE_BINARY_DIR}/deb/postinst @ONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/deb/postinst)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
