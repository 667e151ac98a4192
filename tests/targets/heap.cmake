# Programs the heap interposer's integration tests run with libsprof-heap.so
# (tests/heap/interposer_test.cpp) and `sprof record --heap` records
# (tests/integration/heap_record_test.cpp). Sites are extern "C" noinline functions the tests find
# with nm.
set(SPROF_HEAP_TARGETS hp_sites hp_realloc_aligned hp_fork_exec hp_signal hp_clearenv hp_peak_leak
  hp_failed_alloc hp_churn hp_lifetimes hp_wrappers hp_free_sites hp_attach_loop)
foreach(t ${SPROF_HEAP_TARGETS})
  sprof_add_target(${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/heap/${t}.cpp)
endforeach()
# Statically linked: LD_PRELOAD does not apply.
sprof_add_target(hp_static SOURCES ${CMAKE_CURRENT_LIST_DIR}/heap/hp_static.cpp)
target_link_options(hp_static PRIVATE -static)
list(APPEND SPROF_HEAP_TARGETS hp_static)

# The same sites under other allocators (docs/heap.md, "Other allocators"), from Debian's
# libjemalloc-dev, libmimalloc-dev and libgoogle-perftools-dev (scripts/install-deps.sh).
find_library(SPROF_JEMALLOC jemalloc REQUIRED)
find_library(SPROF_MIMALLOC mimalloc REQUIRED)
find_library(SPROF_TCMALLOC_MINIMAL tcmalloc_minimal REQUIRED)
set(hp_allocators_src ${CMAKE_CURRENT_LIST_DIR}/heap/hp_allocators.cpp)
sprof_add_target(hp_alloc_glibc SOURCES ${hp_allocators_src})
sprof_add_target(hp_alloc_jemalloc SOURCES ${hp_allocators_src} LIBS ${SPROF_JEMALLOC})
sprof_add_target(hp_alloc_tcmalloc SOURCES ${hp_allocators_src} LIBS ${SPROF_TCMALLOC_MINIMAL})
sprof_add_target(hp_alloc_mimalloc SOURCES ${hp_allocators_src} LIBS ${SPROF_MIMALLOC})
# Every allocation API on an allocator without glibc's __libc_* names, behind the interposer.
sprof_add_target(hp_realloc_aligned_jemalloc
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/heap/hp_realloc_aligned.cpp LIBS ${SPROF_JEMALLOC})
target_compile_definitions(hp_alloc_mimalloc PRIVATE HP_MIMALLOC_API)
# A program without mimalloc that opens, RTLD_LOCAL, a plugin that links it.
add_library(hp_mimalloc_plugin SHARED ${CMAKE_CURRENT_LIST_DIR}/heap/hp_mimalloc_plugin.c)
set_target_properties(hp_mimalloc_plugin PROPERTIES PREFIX "")
target_compile_options(hp_mimalloc_plugin PRIVATE ${SPROF_TARGET_FLAGS})
target_link_libraries(hp_mimalloc_plugin PRIVATE ${SPROF_MIMALLOC})
sprof_add_target(hp_dlopen_mimalloc SOURCES ${CMAKE_CURRENT_LIST_DIR}/heap/hp_dlopen_mimalloc.cpp
  LIBS ${CMAKE_DL_LIBS})
add_dependencies(hp_dlopen_mimalloc hp_mimalloc_plugin)
# The executable defines malloc and free itself, ahead of any LD_PRELOAD library.
sprof_add_target(hp_own_malloc SOURCES ${CMAKE_CURRENT_LIST_DIR}/heap/hp_own_malloc.cpp)
list(APPEND SPROF_HEAP_TARGETS hp_alloc_glibc hp_alloc_jemalloc hp_alloc_tcmalloc hp_alloc_mimalloc
  hp_realloc_aligned_jemalloc
  hp_dlopen_mimalloc hp_own_malloc)
