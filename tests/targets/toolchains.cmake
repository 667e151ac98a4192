# Programs built by other toolchains than the project's, the way users build them, for the
# symbolicator's and the recorder's checks against what those toolchains emit:
#   tc_rust       rustc -C opt-level=3 -C debuginfo=2                (legacy mangling, _ZN...17h<hash>E)
#   tc_rust_v0    the same with -C symbol-mangling-version=v0        (_R... names)
#   tc_rust_alloc, tc_rust_alloc_v0: the same two ways, a program that allocates through Rust's
#                 allocation paths (Vec growth, Box, vec!) for `record --heap`'s stacks
#   tc_clang_lld  clang++ -std=c++20 -O2 -g -fuse-ld=lld -pthread
# rustc >= 1.90 links with rust-lld; LLD lays the executable LOAD segment out with
# p_vaddr != p_offset, which is what these programs are for. They are custom targets: the file of
# each is in its SPROF_LOCATION property ($<TARGET_PROPERTY:tc_rust,SPROF_LOCATION>), and at
# <build>/tests/targets/toolchains/<name> (sprof::test::kTargetsDir + "/toolchains/<name>").
# Their sources describe their call structure and what they print.
#
# A missing toolchain fails the configure step, saying what to install; configure with
# -DSPROF_TOOLCHAIN_TARGETS=OFF to build without these programs (tests that need them then skip).
option(SPROF_TOOLCHAIN_TARGETS "Build tests/targets/toolchains (needs rustc, clang++ and lld)" ON)
if(NOT SPROF_TOOLCHAIN_TARGETS)
  return()
endif()

find_program(SPROF_RUSTC rustc HINTS $ENV{HOME}/.cargo/bin /root/.cargo/bin)
find_program(SPROF_CLANGXX NAMES clang++ clang++-14)
find_program(SPROF_LD_LLD NAMES ld.lld ld.lld-14)
set(toolchain_hint "or configure with -DSPROF_TOOLCHAIN_TARGETS=OFF to build without tests/targets/toolchains")
if(NOT SPROF_RUSTC)
  message(FATAL_ERROR "tests/targets/toolchains.cmake: rustc not found. Install Rust "
                      "(rustup, or the Debian package rustc; rustc >= 1.90 links with LLD like "
                      "the suite expects), or point -DSPROF_RUSTC=/path/to/rustc at it, "
                      "${toolchain_hint}.")
endif()
# Before 1.90 rustc linked through the system's cc (GNU ld), and the programs would not be what
# they are for.
execute_process(COMMAND ${SPROF_RUSTC} --version OUTPUT_VARIABLE rustc_version_text
                OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" rustc_version "${rustc_version_text}")
if(NOT rustc_version OR rustc_version VERSION_LESS 1.90)
  message(FATAL_ERROR "tests/targets/toolchains.cmake: ${SPROF_RUSTC} is \"${rustc_version_text}\"; "
                      "rustc >= 1.90 is needed (it links with rust-lld). Install it with rustup, "
                      "${toolchain_hint}.")
endif()
if(NOT SPROF_CLANGXX)
  message(FATAL_ERROR "tests/targets/toolchains.cmake: clang++ not found. Install the Debian "
                      "package clang (apt-get install clang lld), ${toolchain_hint}.")
endif()
if(NOT SPROF_LD_LLD)
  message(FATAL_ERROR "tests/targets/toolchains.cmake: ld.lld not found. Install the Debian "
                      "package lld (apt-get install lld), ${toolchain_hint}.")
endif()

set(toolchains_source ${CMAKE_CURRENT_SOURCE_DIR}/toolchains)
set(toolchains_dir ${CMAKE_CURRENT_BINARY_DIR}/toolchains)
file(MAKE_DIRECTORY ${toolchains_dir})

# A custom target `name` for the program that `COMMAND ...` writes to <toolchains_dir>/<name>.
# Each compiles in a directory of its own: rustc puts its intermediate files next to its output,
# named after the crate, which tc_rust and tc_rust_v0 share.
function(sprof_toolchain_target name source)
  set(output ${toolchains_dir}/${name})
  set(work ${toolchains_dir}/${name}.build)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
    COMMAND ${ARGN} -o ${work}/${name}
    COMMAND ${CMAKE_COMMAND} -E copy ${work}/${name} ${output}
    DEPENDS ${source}
    WORKING_DIRECTORY ${toolchains_dir}
    COMMENT "Building toolchain target ${name}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${output})
  set_target_properties(${name} PROPERTIES SPROF_LOCATION ${output})
endfunction()

set(rust_source ${toolchains_source}/tc_rust.rs)
sprof_toolchain_target(tc_rust ${rust_source}
  ${SPROF_RUSTC} -C opt-level=3 -C debuginfo=2 ${rust_source})
sprof_toolchain_target(tc_rust_v0 ${rust_source}
  ${SPROF_RUSTC} -C opt-level=3 -C debuginfo=2 -C symbol-mangling-version=v0 ${rust_source})
set(rust_alloc_source ${toolchains_source}/tc_rust_alloc.rs)
sprof_toolchain_target(tc_rust_alloc ${rust_alloc_source}
  ${SPROF_RUSTC} -C opt-level=3 -C debuginfo=2 ${rust_alloc_source})
sprof_toolchain_target(tc_rust_alloc_v0 ${rust_alloc_source}
  ${SPROF_RUSTC} -C opt-level=3 -C debuginfo=2 -C symbol-mangling-version=v0 ${rust_alloc_source})

set(clang_source ${toolchains_source}/tc_clang_lld.cpp)
sprof_toolchain_target(tc_clang_lld ${clang_source}
  ${SPROF_CLANGXX} -std=c++20 -O2 -g -fuse-ld=lld -pthread ${clang_source})
