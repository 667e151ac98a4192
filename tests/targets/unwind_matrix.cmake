# it_unwind (integration/it_unwind.cpp) built the ways users build C and C++ programs, for the
# toolchain matrix (tests/integration/toolchain_matrix_test.cpp). Every variant runs the same
# code with the same known call structure, so one check of exact chains serves them all; what
# differs is the layout the linker chose (LLD and mold pack segments into shared file pages, so
# p_vaddr != p_offset for the code), how the debug info is stored, and how the program is loaded.
#
# A variant whose compiler or linker is missing is not defined; its test then fails and names
# the Debian package to install (scripts/install-deps.sh installs them all).
set(SPROF_MATRIX_SOURCE ${CMAKE_CURRENT_LIST_DIR}/integration/it_unwind.cpp)
set(SPROF_MATRIX_FLAGS -g -O2 -fomit-frame-pointer)

# g++ variants: the project's own compiler, with another linker or layout.
function(sprof_matrix_gxx name)
  cmake_parse_arguments(ARG "" "" "COMPILE;LINK" ${ARGN})
  sprof_add_target(${name} SOURCES ${SPROF_MATRIX_SOURCE} FLAGS ${SPROF_MATRIX_FLAGS} ${ARG_COMPILE})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/integration)
  target_link_options(${name} PRIVATE ${ARG_LINK})
endfunction()

sprof_matrix_gxx(it_unwind_gold LINK -fuse-ld=gold)
sprof_matrix_gxx(it_unwind_nopie COMPILE -fno-pie LINK -no-pie)
sprof_matrix_gxx(it_unwind_static_pie COMPILE -fPIE LINK -static-pie)
sprof_matrix_gxx(it_unwind_split_dwarf COMPILE -gsplit-dwarf)
sprof_matrix_gxx(it_unwind_compressed COMPILE -gz=zlib LINK -gz=zlib)
find_program(SPROF_MOLD mold)
if(SPROF_MOLD)
  sprof_matrix_gxx(it_unwind_mold LINK -fuse-ld=mold)
else()
  message(WARNING "mold not found: it_unwind_mold is not built (Debian package: mold)")
endif()

# clang++ variants: built by a custom command, since the project's compiler is g++.
find_program(SPROF_CLANGXX NAMES clang++ clang++-14)
find_program(SPROF_LLD NAMES ld.lld ld.lld-14)
function(sprof_matrix_clang name)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${SPROF_CLANGXX} ${SPROF_MATRIX_FLAGS} -std=c++20 -pthread
            -I${CMAKE_CURRENT_LIST_DIR}/integration ${ARGN} ${SPROF_MATRIX_SOURCE} -o ${out}
    DEPENDS ${SPROF_MATRIX_SOURCE} ${CMAKE_CURRENT_LIST_DIR}/integration/spin.hpp
    COMMENT "clang++ ${ARGN}: ${name}"
    VERBATIM)
  add_custom_target(${name}_build ALL DEPENDS ${out})
endfunction()
if(SPROF_CLANGXX AND SPROF_LLD)
  sprof_matrix_clang(it_unwind_clang_lld -fuse-ld=lld)
  sprof_matrix_clang(it_unwind_clang_lld_nopie -fuse-ld=lld -fno-pie -no-pie)
else()
  message(WARNING "clang++ or ld.lld not found: the clang/lld variants are not built "
                  "(Debian packages: clang lld)")
endif()
if(SPROF_CLANGXX AND SPROF_MOLD)
  sprof_matrix_clang(it_unwind_clang_mold -fuse-ld=mold)
endif()
