# Programs for the CPU-time and off-CPU integration tests (tests/integration/off_cpu_test.cpp).
sprof_add_target(offcpu_blockers SOURCES offcpu/offcpu_blockers.cpp)
sprof_add_target(offcpu_cpu_threads SOURCES offcpu/offcpu_cpu_threads.cpp)
