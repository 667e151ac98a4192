# Target programs for the unwinder tests and benchmark (tests/unwind/unwind_*_test.cpp,
# tests/recorder/unwind_snapshot_test.cpp, bench/unwind.cpp). No frame pointers: only CFI can walk
# them, as in Debian's own libraries.
set(SPROF_UNWIND_TARGET_FLAGS -g -O2 -fomit-frame-pointer)

add_library(unwind_target_lib SHARED ${CMAKE_CURRENT_LIST_DIR}/unwind/unwind_lib.cpp)
target_compile_options(unwind_target_lib PRIVATE ${SPROF_UNWIND_TARGET_FLAGS})

sprof_add_target(unwind_snapshots
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/unwind/unwind_snapshots.cpp
          ${CMAKE_CURRENT_LIST_DIR}/unwind/snapshot_sampler.cpp
  FLAGS ${SPROF_UNWIND_TARGET_FLAGS}
  LIBS unwind_target_lib m)

# CFI only in .debug_frame (no .eh_frame entries for its code), and a PLT without any CFI.
add_library(unwind_debug_frame_lib SHARED ${CMAKE_CURRENT_LIST_DIR}/unwind/debug_frame_lib.cpp)
target_compile_options(unwind_debug_frame_lib PRIVATE
  ${SPROF_UNWIND_TARGET_FLAGS} -fno-asynchronous-unwind-tables -fno-exceptions)
target_link_options(unwind_debug_frame_lib PRIVATE -Wl,--no-ld-generated-unwind-info)
# The same library split the way distributions ship it: --strip-debug takes .debug_frame (its only
# CFI) out of the library, --only-keep-debug keeps it in the separate debug file, which the
# unwinder tests place in a symbol directory's .build-id tree.
set(unwind_split_dir ${CMAKE_CURRENT_BINARY_DIR}/unwind_debug_frame_split)
add_custom_command(
  OUTPUT ${unwind_split_dir}/libunwind_debug_frame_lib.so
         ${unwind_split_dir}/libunwind_debug_frame_lib.debug
  COMMAND ${CMAKE_COMMAND} -E make_directory ${unwind_split_dir}
  COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:unwind_debug_frame_lib>
          ${unwind_split_dir}/libunwind_debug_frame_lib.debug
  COMMAND ${CMAKE_OBJCOPY} --strip-debug $<TARGET_FILE:unwind_debug_frame_lib>
          ${unwind_split_dir}/libunwind_debug_frame_lib.so
  DEPENDS unwind_debug_frame_lib
  COMMENT "Splitting .debug_frame out of libunwind_debug_frame_lib"
  VERBATIM)
add_custom_target(unwind_debug_frame_split
  DEPENDS ${unwind_split_dir}/libunwind_debug_frame_lib.so
          ${unwind_split_dir}/libunwind_debug_frame_lib.debug)

# The reader of what unwind_snapshots writes (samples.bin, maps.txt, vdso.bin): the unwinder
# tests and bench/unwind.cpp link it.
add_library(unwind_snapshot_reader STATIC ${CMAKE_CURRENT_LIST_DIR}/unwind/unwind_snapshot.cpp)
target_include_directories(unwind_snapshot_reader PUBLIC ${CMAKE_CURRENT_LIST_DIR}/unwind)
target_link_libraries(unwind_snapshot_reader PUBLIC sprof::unwind sprof::elf sprof::core)
sprof_set_warnings(unwind_snapshot_reader)
