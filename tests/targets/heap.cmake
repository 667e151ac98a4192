# Programs the heap interposer's integration tests run with libsprof-heap.so
# (tests/heap/interposer_test.cpp) and `sprof record --heap` records
# (tests/integration/heap_record_test.cpp). Sites are extern "C" noinline functions the tests find
# with nm.
set(SPROF_HEAP_TARGETS hp_sites hp_realloc_aligned hp_fork_exec hp_signal hp_clearenv hp_peak_leak
  hp_failed_alloc hp_churn hp_lifetimes hp_wrappers)
foreach(t ${SPROF_HEAP_TARGETS})
  sprof_add_target(${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/heap/${t}.cpp)
endforeach()
# Statically linked: LD_PRELOAD does not apply.
sprof_add_target(hp_static SOURCES ${CMAKE_CURRENT_LIST_DIR}/heap/hp_static.cpp)
target_link_options(hp_static PRIVATE -static)
list(APPEND SPROF_HEAP_TARGETS hp_static)
