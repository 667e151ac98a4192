# Programs for the marker and JIT-symbol tests (tests/integration/markers_jit_test.cpp).
# User markers through include/sprof/markers.h, from C++ (two threads) and from C.
sprof_add_target(mk_user_markers SOURCES markers/mk_user_markers.cpp LIBS sprof::markers_api)
sprof_add_target(mk_user_markers_c SOURCES markers/mk_user_markers_c.c LIBS sprof::markers_api)
# Writes a samply-format marker file itself (no sprof header).
sprof_add_target(mk_samply_markers SOURCES markers/mk_samply_markers.cpp)
# A fake JIT: copies a loop into anonymous executable memory and names it in a perf map or a
# jitdump.
sprof_add_target(mk_fake_jit SOURCES markers/mk_fake_jit.cpp)
# A long-running program with one marked moment, for the flight recorder.
sprof_add_target(mk_flight_event SOURCES markers/mk_flight_event.cpp LIBS sprof::markers_api)
