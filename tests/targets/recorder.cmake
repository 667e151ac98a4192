# Programs the recorder's own integration tests launch and sample.
sprof_add_target(recorder_busy_loop SOURCES recorder/busy_loop.cpp)
