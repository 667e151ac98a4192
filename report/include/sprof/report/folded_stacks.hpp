// sprof/report/folded_stacks.hpp
//
// Collapsed ("folded") stacks, the input of FlameGraph's flamegraph.pl, inferno and Pyroscope:
// one line per distinct stack, frames from the root joined by ';', a space, then its weight.
// Lines are sorted, so the output of one profile is always the same. Names are the report's
// (inline frames are frames); a ';' or a line break inside a name would split it and becomes
// ':' or a space.
#pragma once

#include <string>

#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

struct FoldedOptions {
  // Starts each stack with a frame naming its thread, "process (pid)/thread (tid)", so threads
  // stay apart; without it equal stacks of different threads add up.
  bool thread_prefix = false;
};

std::string folded_stacks(const ReportProfile& profile, const ThreadSet& threads,
                          const FoldedOptions& options = {});

}  // namespace sprof::report
