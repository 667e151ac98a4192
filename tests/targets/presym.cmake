# The program the self-contained profile tests record (tests/integration/self_contained_test.cpp):
# a forced inline chain of its own (symbols/inline_chain.cpp), vdso calls and short sleeps.
sprof_add_target(presym_target SOURCES presym/presym_target.cpp symbols/inline_chain.cpp)
target_include_directories(presym_target PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/symbols)
