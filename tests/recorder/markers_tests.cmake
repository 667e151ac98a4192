# Markers (lifecycle, user marker files, schemas) and JIT symbols (perf maps, jitdumps, their
# libs and symbolication): sprof_markers_jit_tests. Included from CMakeLists.txt.
sprof_add_test(sprof_markers_jit_tests
  SOURCES jit_libraries_test.cpp
          jit_symbol_file_test.cpp
          lifecycle_markers_test.cpp
          marker_files_test.cpp
  LIBS sprof::recorder sprof::elf sprof::symbolicator sprof::profile sprof_gecko_validator
  LABELS unit)
target_include_directories(sprof_markers_jit_tests PRIVATE ${recorder_test_includes})
