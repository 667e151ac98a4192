# The unwinder on real samples: the `unwind_snapshots` target (tests/targets/unwind.cmake)
# samples itself, and CfiUnwinder walks those samples with the CFI of this machine's binaries
# (recorder::LocalFiles, separate debug files included). Rule evaluation and whole walks over
# fake stacks are sprof::unwind's own tests (tests/unwind). Included from tests/recorder/CMakeLists.txt.
sprof_add_test(sprof_unwind_snapshot_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/unwind_snapshot_test.cpp
  LIBS sprof::recorder unwind_snapshot_reader)
add_dependencies(sprof_unwind_snapshot_tests unwind_snapshots)
