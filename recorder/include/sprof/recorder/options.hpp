// sprof/recorder/options.hpp
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::recorder {

enum class UnwindMode { kDwarf, kFramePointer };

struct RecordOptions {
  std::vector<std::string> command;  // argv of the program to launch
  int frequency_hz = 1000;
  UnwindMode unwind = UnwindMode::kDwarf;
  // Bytes of user stack copied per sample for DWARF unwinding (PERF_SAMPLE_STACK_USER).
  uint32_t stack_size = 16384;
  // Off-CPU stacks: where a thread blocks, its stack at switch-out becomes Idle samples with no
  // CPU for the blocked time (contract section 4.3). --no-off-cpu turns it off.
  bool off_cpu = true;

  // What to record instead of launching `command` (exactly one of the three is given):
  // -p: running processes, with all their threads and whatever they create from now on.
  std::vector<int> attach_pids;
  // -a: every process on the system (CPU-wide events; root or perf_event_paranoid <= 0).
  bool system_wide = false;
  // -d: stop recording after this many seconds (0: when the targets end, or on Ctrl-C).
  double duration_s = 0;
  // A launched command still running when -d stops the recording is left running, unless this
  // asks to terminate it (SIGTERM, then SIGKILL if it lingers).
  bool kill_on_stop = false;
  // Launch the command this many times, one after another, into one profile.
  int iteration_count = 1;
};

// Errc::kInvalidArgument, saying what is wrong, for contradictory or out-of-range choices (no
// target or several, a negative duration, iterations or --kill-on-stop without a command).
Result<void> check_record_options(const RecordOptions& options);

}  // namespace sprof::recorder
