# sprof_add_test(<name> SOURCES ... LIBS ... [LABELS ...])
# One doctest executable per module, linked only to that module and tests/support, registered
# with ctest through doctest_discover_tests so each TEST_CASE is its own ctest test.
function(sprof_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE sprof_test_support ${ARG_LIBS})
  sprof_set_warnings(${name})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  doctest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
