# libFuzzer target for the heap ring reader (tests/fuzz/heap_ring_fuzzer.cpp). Included from
# tests/CMakeLists.txt when SPROF_FUZZ is on; needs clang (-fsanitize=fuzzer). The reader's
# sources are compiled into the fuzzer so that they carry coverage instrumentation.
#   CXX=clang++ CC=clang cmake -S . -B build-fuzz -G Ninja -DSPROF_FUZZ=ON
#   cmake --build build-fuzz --target sprof_heap_ring_fuzzer
#   build-fuzz/tests/sprof_heap_ring_fuzzer -max_total_time=60
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(WARNING "SPROF_FUZZ: the heap ring fuzzer needs clang; skipped")
  return()
endif()
add_executable(sprof_heap_ring_fuzzer
  ${CMAKE_CURRENT_LIST_DIR}/heap_ring_fuzzer.cpp
  ${PROJECT_SOURCE_DIR}/heap/src/reader/heap_dump.cpp
  ${PROJECT_SOURCE_DIR}/heap/src/reader/record_decoder.cpp
  ${PROJECT_SOURCE_DIR}/heap/src/reader/ring_reader.cpp)
target_link_libraries(sprof_heap_ring_fuzzer PRIVATE sprof::heap_format sprof::core)
target_compile_options(sprof_heap_ring_fuzzer PRIVATE -g -O1 -fsanitize=fuzzer,address,undefined)
target_link_options(sprof_heap_ring_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
