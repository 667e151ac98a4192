# Programs the integration tests record with `sprof record`.
sprof_add_target(it_threads SOURCES integration/it_threads.cpp)
sprof_add_target(it_spin SOURCES integration/it_spin.cpp)
sprof_add_target(it_fork_exec SOURCES integration/it_fork_exec.cpp)
sprof_add_target(it_crash SOURCES integration/it_crash.cpp)
# Release-style flags: no frame pointers anywhere, as in Debian's own libraries.
sprof_add_target(it_unwind SOURCES integration/it_unwind.cpp
  FLAGS -g -O2 -fomit-frame-pointer)
# Command-line handling: what the recorded program received; a program that ignores SIGINT and
# SIGTERM.
sprof_add_target(it_args SOURCES integration/it_args.cpp)
sprof_add_target(it_stubborn SOURCES integration/it_stubborn.cpp)
# Per-CPU tracks: threads pinned to known CPUs.
sprof_add_target(it_pinned SOURCES integration/it_pinned.cpp)
