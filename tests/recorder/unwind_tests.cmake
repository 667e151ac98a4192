# Unwinder tests: rule evaluation over synthetic stacks, CFI reading, and whole unwinds of real
# snapshots taken by the `unwind_snapshots` target (tests/targets/unwind.cmake).
# Included from tests/recorder/CMakeLists.txt.
sprof_add_test(sprof_unwind_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/unwind_cfi_module_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/unwind_rule_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/unwind_snapshot.cpp
    ${CMAKE_CURRENT_LIST_DIR}/unwind_snapshot_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/unwind_walk_test.cpp
  LIBS sprof::recorder sprof::elf)
# The unwinder's headers are private to the recorder library.
target_include_directories(sprof_unwind_tests PRIVATE ${PROJECT_SOURCE_DIR}/recorder/src)
add_dependencies(sprof_unwind_tests unwind_snapshots unwind_debug_frame_lib)
