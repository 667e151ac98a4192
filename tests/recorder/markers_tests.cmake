# Markers and JIT symbols on real files: marker files and the marker directory, perf maps and
# jitdumps read from the disk (recorder::LocalFiles) and symbolicated, exec command lines from
# /proc: sprof_markers_jit_tests. The converter's markers themselves are tested in tests/convert.
# Included from CMakeLists.txt.
sprof_add_test(sprof_markers_jit_tests
  SOURCES exec_command_line_test.cpp
          jit_libraries_test.cpp
          jit_symbol_file_test.cpp
          marker_files_test.cpp
  LIBS sprof::recorder sprof::symbolicator sprof::profile
  LABELS unit)
target_include_directories(sprof_markers_jit_tests PRIVATE ${recorder_test_includes})
