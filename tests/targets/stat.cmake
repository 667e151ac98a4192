# `sprof stat`: a program with known context switches and page faults.
sprof_add_target(st_known_counts SOURCES stat/st_known_counts.cpp)
