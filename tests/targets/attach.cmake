# Programs the attach (-p) and system-wide (-a) integration tests record while they run.
sprof_add_target(it_attach SOURCES attach/it_attach.cpp)
