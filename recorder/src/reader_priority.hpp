// reader_priority.hpp (private)
//
// How the thread that reads the rings is scheduled. While recording it is raised
// (`raise_reader_priority`): nice -10, and SCHED_FIFO at the lowest real-time priority where
// allowed, because it competes for CPU with a target that usually keeps every CPU busy, and
// late reading loses samples. Writing and serving need none of that (`lower_reader_priority`).
//
// Some kernel work must not run real-time: `OrdinaryScheduling` runs a scope at SCHED_OTHER.
// Reaping the command is such work: waitpid runs the kernel's cleanup of the command's /proc
// entries (release_task -> d_invalidate -> shrink_dcache_parent), which loops until entries that
// other tasks are releasing are gone. A real-time thread looping there does not let those tasks
// run on its CPU, so it can spin for a long time: on 2 busy vCPUs one reap took ~0.9 s of
// sprof's CPU. In 16 recordings of 1,600 samples each, "CPU per sample" reached 578 and 606 us
// twice with the reap at SCHED_FIFO, and at most 127 us with it at SCHED_OTHER. (Most of the rest
// was the poll loop's spin, drain_loop.cpp / PerfEvents::poll.)
#pragma once

#include <sched.h>

namespace sprof::recorder {

void raise_reader_priority();
void lower_reader_priority();

// For the length of a scope, a real-time thread becomes SCHED_OTHER (its nice value is kept);
// the policy is restored at the end of the scope. Does nothing on a thread that is not real-time.
class OrdinaryScheduling {
 public:
  OrdinaryScheduling();
  ~OrdinaryScheduling();
  OrdinaryScheduling(const OrdinaryScheduling&) = delete;
  OrdinaryScheduling& operator=(const OrdinaryScheduling&) = delete;

 private:
  int policy_ = SCHED_OTHER;  // as sched_getscheduler returned it (flags included)
  sched_param param_{};
};

}  // namespace sprof::recorder
