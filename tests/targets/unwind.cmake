# Target programs for the unwinder tests and benchmark (tests/recorder/unwind_*_test.cpp,
# bench/unwind.cpp). No frame pointers: only CFI can walk them, as in Debian's own libraries.
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
