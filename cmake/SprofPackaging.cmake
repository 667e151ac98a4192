# The Debian package: `cmake --build build --target package` or scripts/package.sh makes
# build/sprof_<version>_<arch>.deb with what `cmake --install` installs (the binary, the marker
# header, libsprof-heap.so, the man page and the shell completions) under /usr. Its Depends are
# computed by dpkg-shlibdeps from the shared libraries the binaries link (libdw1, libelf1,
# libcapstone4, libsimdjson14, zlib1g, libstdc++6, libc6 on Debian 12), so they follow whatever
# the build links, plus libdebuginfod1, which sprof loads at run time. tests/package installs it into a clean Debian 12 root.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sprof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "sprof")
set(CPACK_PACKAGE_CONTACT "sprof maintainers <sprof@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "sampling profiler for Linux that opens its profiles in the Firefox Profiler")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "sampling profiler for Linux that opens its profiles in the Firefox Profiler\n\
 sprof records a program and everything it starts with perf_event_open, unwinds\n\
 its stacks with its own DWARF CFI unwinder and writes a self-contained profile\n\
 for the Firefox Profiler, which it serves with symbols from a local server.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # sprof_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded with dlopen at the first debuginfod query (elf/src/debuginfod_client.cpp), so
# dpkg-shlibdeps cannot see it; CPack puts what it finds after this.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libdebuginfod1")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The build keeps debug info (sprof symbolicates itself in tests); the package does not need it.
set(CPACK_STRIP_FILES ON)
# glibc's own `sprof` (libc-devtools; its man page is in manpages) has the same paths: the
# maintainer scripts divert it to sprof.glibc while this package is installed
# (cmake/debian/preinst, postrm).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${CMAKE_CURRENT_LIST_DIR}/debian/preinst ${CMAKE_CURRENT_LIST_DIR}/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
