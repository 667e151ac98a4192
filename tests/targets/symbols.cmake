# Programs the symbolicator tests (tests/symbolicator) symbolicate: named functions, a forced
# inline chain, inlining inside a lambda and a local class, a shared library, a non-PIE build (v0 != 0), and stripped copies whose DWARF
# lives in a separate file found by build-id or by .gnu_debuglink.
add_library(sprof_symbols_shared SHARED symbols/shared_lib.cpp)
target_compile_options(sprof_symbols_shared PRIVATE ${SPROF_TARGET_FLAGS})

sprof_add_target(sprof_symbols_target
  SOURCES symbols/main.cpp symbols/inline_chain.cpp symbols/local_classes.cpp
  LIBS sprof_symbols_shared)

sprof_add_target(sprof_symbols_nopie
  SOURCES symbols/main.cpp symbols/inline_chain.cpp symbols/local_classes.cpp
  FLAGS ${SPROF_TARGET_FLAGS} -fno-pie
  LIBS sprof_symbols_shared)
target_link_options(sprof_symbols_nopie PRIVATE -no-pie)

# Split DWARF (-gsplit-dwarf): the program holds skeleton units, each naming the .dwo file that
# holds its DIEs (next to its object file: DW_AT_dwo_name, relative to DW_AT_comp_dir). DWARF 5 is
# g++'s default; with DWARF 4 it is GNU's extension (DW_AT_GNU_dwo_name).
sprof_add_target(sprof_symbols_split_dwarf5
  SOURCES symbols/main.cpp symbols/inline_chain.cpp symbols/local_classes.cpp
  FLAGS ${SPROF_TARGET_FLAGS} -gsplit-dwarf
  LIBS sprof_symbols_shared)
sprof_add_target(sprof_symbols_split_dwarf4
  SOURCES symbols/main.cpp symbols/inline_chain.cpp symbols/local_classes.cpp
  FLAGS ${SPROF_TARGET_FLAGS} -gsplit-dwarf -gdwarf-4
  LIBS sprof_symbols_shared)

# Separate debug info, made the way distributions do it:
#   symbols/sprof_symbols_target.debug          objcopy --only-keep-debug (keeps the build-id)
#   symbols/by_build_id/sprof_symbols_target    --strip-debug, no debuglink: found only through
#                                               a .build-id tree the test creates
#   symbols/by_debuglink/sprof_symbols_target   --strip-debug --add-gnu-debuglink, with the
#                                               debug file in its .debug/ subdirectory
#   symbols/stripped/sprof_symbols_target       --strip-all: no .symtab, no DWARF, no link; only
#                                               .dynsym and .eh_frame name its code (the debug
#                                               file is served by the debuginfod test's server)
set(symbols_dir ${CMAKE_CURRENT_BINARY_DIR}/symbols)
set(symbols_debug ${symbols_dir}/sprof_symbols_target.debug)
add_custom_command(
  OUTPUT ${symbols_debug}
         ${symbols_dir}/by_build_id/sprof_symbols_target
         ${symbols_dir}/by_debuglink/sprof_symbols_target
         ${symbols_dir}/by_debuglink/.debug/sprof_symbols_target.debug
         ${symbols_dir}/stripped/sprof_symbols_target
  COMMAND ${CMAKE_COMMAND} -E make_directory ${symbols_dir}/by_build_id
          ${symbols_dir}/by_debuglink/.debug ${symbols_dir}/stripped
  COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:sprof_symbols_target> ${symbols_debug}
  COMMAND ${CMAKE_OBJCOPY} --strip-debug $<TARGET_FILE:sprof_symbols_target>
          ${symbols_dir}/by_build_id/sprof_symbols_target
  COMMAND ${CMAKE_OBJCOPY} --strip-debug --add-gnu-debuglink=${symbols_debug}
          $<TARGET_FILE:sprof_symbols_target> ${symbols_dir}/by_debuglink/sprof_symbols_target
  COMMAND ${CMAKE_COMMAND} -E copy ${symbols_debug}
          ${symbols_dir}/by_debuglink/.debug/sprof_symbols_target.debug
  COMMAND ${CMAKE_OBJCOPY} --strip-all $<TARGET_FILE:sprof_symbols_target>
          ${symbols_dir}/stripped/sprof_symbols_target
  DEPENDS sprof_symbols_target
  COMMENT "Splitting debug info of sprof_symbols_target"
  VERBATIM)
add_custom_target(sprof_symbols_split ALL
  DEPENDS ${symbols_debug} ${symbols_dir}/by_build_id/sprof_symbols_target
          ${symbols_dir}/by_debuglink/sprof_symbols_target
          ${symbols_dir}/stripped/sprof_symbols_target)

# Compiled from symbols/relative_build/ with a relative source path ("../../../symbols/...",
# like glibc's "../sysdeps/..."): DWARF names the file relative to DW_AT_comp_dir.
set(relative_build_dir ${symbols_dir}/relative_build)
file(MAKE_DIRECTORY ${relative_build_dir})
file(RELATIVE_PATH relative_source ${relative_build_dir}
     ${CMAKE_CURRENT_SOURCE_DIR}/symbols/relative_paths.cpp)
add_custom_command(
  OUTPUT ${symbols_dir}/sprof_symbols_relative
  COMMAND ${CMAKE_CXX_COMPILER} -g -O2 ${relative_source} -o ${symbols_dir}/sprof_symbols_relative
  WORKING_DIRECTORY ${relative_build_dir}
  DEPENDS symbols/relative_paths.cpp
  COMMENT "Compiling sprof_symbols_relative from a relative source path"
  VERBATIM)
add_custom_target(sprof_symbols_relative ALL DEPENDS ${symbols_dir}/sprof_symbols_relative)

# Split DWARF whose .dwo is gone: compiled to an object, linked, then the .dwo deleted.
set(dwo_missing_dir ${symbols_dir}/dwo_missing)
file(MAKE_DIRECTORY ${dwo_missing_dir})
add_custom_command(
  OUTPUT ${symbols_dir}/sprof_symbols_dwo_missing
  COMMAND ${CMAKE_CXX_COMPILER} -g -O2 -gsplit-dwarf -c
          ${CMAKE_CURRENT_SOURCE_DIR}/symbols/relative_paths.cpp -o relative_paths.o
  COMMAND ${CMAKE_CXX_COMPILER} relative_paths.o -o ${symbols_dir}/sprof_symbols_dwo_missing
  COMMAND ${CMAKE_COMMAND} -E rm -f relative_paths.dwo
  WORKING_DIRECTORY ${dwo_missing_dir}
  DEPENDS symbols/relative_paths.cpp
  COMMENT "Compiling sprof_symbols_dwo_missing with split DWARF, then deleting its .dwo"
  VERBATIM)
add_custom_target(sprof_symbols_dwo_missing ALL DEPENDS ${symbols_dir}/sprof_symbols_dwo_missing)

# The same code with DWARF 4 (.debug_ranges, DW_AT_sibling) and with compressed debug sections
# (-gz), as shared objects: what the own DWARF reader must read as libdw does
# (tests/elf/dwarf_parity_test.cpp).
foreach(variant IN ITEMS dwarf4 compressed)
  if(variant STREQUAL dwarf4)
    set(variant_flags -gdwarf-4)
  else()
    set(variant_flags -gz)
  endif()
  add_custom_command(
    OUTPUT ${symbols_dir}/sprof_symbols_${variant}
    COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -O2 -g ${variant_flags} -fPIC -shared
            ${CMAKE_CURRENT_SOURCE_DIR}/symbols/inline_chain.cpp
            ${CMAKE_CURRENT_SOURCE_DIR}/symbols/local_classes.cpp
            -o ${symbols_dir}/sprof_symbols_${variant}
    DEPENDS symbols/inline_chain.cpp symbols/local_classes.cpp
    COMMENT "Compiling sprof_symbols_${variant}"
    VERBATIM)
  add_custom_target(sprof_symbols_${variant} ALL DEPENDS ${symbols_dir}/sprof_symbols_${variant})
endforeach()
