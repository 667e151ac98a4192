#include "reader_priority.hpp"

#include <sys/resource.h>

#include "sprof/core/log.hpp"

namespace sprof::recorder {

// Only this thread is raised (Linux nice values and policies are per thread), after the child
// was forked, so the target keeps its own priority. Without CAP_SYS_NICE this fails quietly and
// sprof runs as before.
//
// Nice -10 alone: ~15 % of samples lost at 10 kHz with 32 KiB stacks on 2 busy CPUs at equal
// priority, none at nice -10. But against 1,000 nice-0 threads per CPU the reader weighs about
// 1 %, less than reading needs, and 2,000 busy threads lost 3 % of their samples
// (docs/benchmarks.md). So where allowed the reader also takes SCHED_FIFO at the lowest real-time
// priority: it runs as soon as a ring wakes it, and blocks in poll otherwise (the kernel's RT
// throttling still bounds it). SCHED_RESET_ON_FORK keeps that policy from the commands and helper
// threads it starts.
void raise_reader_priority() {
  constexpr int kReaderNice = -10;
  if (setpriority(PRIO_PROCESS, 0, kReaderNice) != 0) {
    log::debug("could not raise the reader's priority; samples may be lost at high rates");
  }
  sched_param param{};
  param.sched_priority = 1;
  if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) != 0) {
    log::debug("could not make the reader real-time; samples may be lost with many threads");
  }
}

void lower_reader_priority() {
  sched_param param{};
  if (sched_getscheduler(0) != SCHED_OTHER) (void)sched_setscheduler(0, SCHED_OTHER, &param);
}

OrdinaryScheduling::OrdinaryScheduling() : policy_(sched_getscheduler(0)) {
  if (policy_ < 0 || (policy_ & ~SCHED_RESET_ON_FORK) == SCHED_OTHER ||
      sched_getparam(0, &param_) != 0) {
    policy_ = SCHED_OTHER;
    return;
  }
  sched_param ordinary{};
  if (sched_setscheduler(0, SCHED_OTHER, &ordinary) != 0) policy_ = SCHED_OTHER;
}

OrdinaryScheduling::~OrdinaryScheduling() {
  if (policy_ != SCHED_OTHER) (void)sched_setscheduler(0, policy_, &param_);
}

}  // namespace sprof::recorder
