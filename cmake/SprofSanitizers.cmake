# SprofSanitizers.cmake: sanitizer builds of sprof (the `asan` preset) and the libFuzzer build
# of tests/fuzz (the `fuzz` preset).
#
#   SPROF_SANITIZE  comma list for -fsanitize=, e.g. "address,undefined"; empty = none.
#                   Every target of the project is instrumented except the programs the tests
#                   record (tests/targets, the demo, the benchmark workload): they copy raw stack
#                   memory on purpose and are measured, not tested, so they stay plain
#                   (`sprof_without_sanitizers`). A finding aborts the process
#                   (-fno-sanitize-recover), so it fails the test that triggered it.
#   SPROF_FUZZ      builds the libFuzzer targets of tests/fuzz; clang only. Adds coverage
#                   instrumentation (-fsanitize=fuzzer-no-link) to every sprof library.

set(SPROF_SANITIZE "" CACHE STRING "Sanitizers for -fsanitize= (e.g. address,undefined); empty: none")
option(SPROF_FUZZ "Build the libFuzzer targets in tests/fuzz (clang only)" OFF)

set(SPROF_SANITIZER_COMPILE_FLAGS "")
set(SPROF_SANITIZER_LINK_FLAGS "")
if(SPROF_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SPROF_FUZZ needs clang (libFuzzer); configure with the `fuzz` preset")
  endif()
  if(NOT SPROF_SANITIZE)
    set(SPROF_SANITIZE "address,undefined" CACHE STRING "" FORCE)
  endif()
  list(APPEND SPROF_SANITIZER_COMPILE_FLAGS -fsanitize=fuzzer-no-link)
endif()

if(SPROF_SANITIZE)
  list(APPEND SPROF_SANITIZER_COMPILE_FLAGS
    -fsanitize=${SPROF_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  list(APPEND SPROF_SANITIZER_LINK_FLAGS -fsanitize=${SPROF_SANITIZE})
  # Directory properties: inherited by every folder added after this point.
  add_compile_options(${SPROF_SANITIZER_COMPILE_FLAGS})
  add_link_options(${SPROF_SANITIZER_LINK_FLAGS})
  message(STATUS "sprof: sanitizers ${SPROF_SANITIZE}")
endif()

# Removes the sanitizer flags from the current directory (and the folders it adds), so the
# targets defined after the call are built plain.
function(sprof_without_sanitizers)
  foreach(property COMPILE_OPTIONS LINK_OPTIONS)
    get_directory_property(options ${property})
    if(options)
      list(REMOVE_ITEM options ${SPROF_SANITIZER_COMPILE_FLAGS} ${SPROF_SANITIZER_LINK_FLAGS})
      set_directory_properties(PROPERTIES ${property} "${options}")
    endif()
  endforeach()
endfunction()

# Same for one target (bench_workload lives beside instrumented benchmarks).
function(sprof_target_without_sanitizers target)
  foreach(property COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(options ${target} ${property})
    if(options)
      list(REMOVE_ITEM options ${SPROF_SANITIZER_COMPILE_FLAGS} ${SPROF_SANITIZER_LINK_FLAGS})
      set_target_properties(${target} PROPERTIES ${property} "${options}")
    endif()
  endforeach()
endfunction()
