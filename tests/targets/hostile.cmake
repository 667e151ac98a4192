# Programs with hostile unwind information, for the CFI checks (tests/symbolicator/
# cfi_integrity_test.cpp). Built like the unwinder's targets: only CFI can walk them.
sprof_add_target(hostile_cfi
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/hostile/hostile_cfi.cpp
  FLAGS -g -O2 -fomit-frame-pointer)
