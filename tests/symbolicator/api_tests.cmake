# Tests of sprof::symbolication_api (included from tests/symbolicator/CMakeLists.txt).
# In-memory modules for the request/reply tests; api_target (tests/targets/api.cmake) for the
# disassembly and end-to-end tests over the real symbolicator.
sprof_add_test(sprof_symbolication_api_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/api_asm_v1_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/api_real_symbolicator_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/api_source_v1_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/api_symbolicate_v5_test.cpp
  LIBS sprof::symbolication_api sprof::elf simdjson::simdjson ZLIB::ZLIB)
add_dependencies(sprof_symbolication_api_tests api_target sprof_symbols_split)
if(SPROF_TOOLCHAIN_TARGETS)
  add_dependencies(sprof_symbolication_api_tests tc_rust tc_rust_v0 tc_clang_lld)
  target_compile_definitions(sprof_symbolication_api_tests PRIVATE SPROF_TOOLCHAIN_TARGETS)
endif()
