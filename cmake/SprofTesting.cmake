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

# sprof_discover_tests(<target> LABELS l1 [l2...] PROPERTIES name value...)
# doctest_discover_tests for a test executable whose tests carry several labels.
# doctest_discover_tests flattens a list-valued property (LABELS "a;b") into the properties after
# it, so such tests silently lost RESOURCE_LOCK, TIMEOUT, FIXTURES_REQUIRED and ENVIRONMENT and
# ran beside the perf tests they must not overlap. Here the labels are set after discovery, on the
# list of tests doctest makes, and the other properties pass through untouched.
function(sprof_discover_tests target)
  cmake_parse_arguments(ARG "" "" "LABELS;PROPERTIES" ${ARGN})
  set(list_var ${target}_DISCOVERED_TESTS)
  doctest_discover_tests(${target} TEST_LIST ${list_var} PROPERTIES ${ARG_PROPERTIES})
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${script}
    "if(DEFINED ${list_var})\n"
    "  set_tests_properties(\${${list_var}} PROPERTIES LABELS \"${ARG_LABELS}\")\n"
    "endif()\n")
  # Runs after doctest's own include file (added to this list by the call above).
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()
