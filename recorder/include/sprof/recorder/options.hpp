// sprof/recorder/options.hpp
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::recorder {

enum class UnwindMode { kDwarf, kFramePointer };

// --cpu-counts: record the scheduler's own count of each thread's CPU time (root, Linux 6.12+;
// docs/design.md). It keeps a stalled virtual CPU out of thread CPU, and costs ~0.1 us per
// scheduler update of a recorded thread: by default it is on where CPUs can stall, on a VM.
enum class CpuCounts { kAuto, kOn, kOff };

// --heap: allocations recorded by libsprof-heap.so in the launched command (docs/heap.md).
enum class HeapMode {
  kOff,
  kSampled,  // --heap: one allocation per `heap_interval_bytes` allocated bytes, on average
  kAll,      // --heap=all: every allocation and free
};

// The event whose samples make the profile (-e). kAuto: hardware cycles where the machine has a
// PMU, else the software cpu-clock. Only the clock events' periods are CPU time.
enum class SamplingEvent {
  kAuto,
  kCpuClock,
  kTaskClock,
  kCycles,
  kInstructions,
  kCacheMisses,
  kPageFaults,
  kContextSwitches,
};

// The -e names ("cpu-clock", ...; perf's names), in the order --help lists them.
const std::vector<std::pair<std::string, SamplingEvent>>& sampling_events();
std::string sampling_event_name(SamplingEvent event);  // "auto" for kAuto

struct RecordOptions {
  std::vector<std::string> command;  // argv of the program to launch
  // "NAME=VALUE" set in the command's environment (leading assignments of the command line).
  std::vector<std::string> environment;
  int frequency_hz = 1000;
  SamplingEvent event = SamplingEvent::kAuto;
  UnwindMode unwind = UnwindMode::kDwarf;
  // Bytes of user stack copied per sample for DWARF unwinding (PERF_SAMPLE_STACK_USER).
  uint32_t stack_size = 16384;
  // Off-CPU stacks: where a thread blocks, its stack at switch-out becomes Idle samples with no
  // CPU for the blocked time (docs/firefox-profiler-format.md, "Off-CPU samples"). --no-off-cpu
  // turns it off.
  bool off_cpu = true;
  CpuCounts cpu_counts = CpuCounts::kAuto;

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

  HeapMode heap = HeapMode::kOff;
  uint64_t heap_interval_bytes = 512ULL * 1024;  // --heap-interval, for kSampled
  // --heap-free-stacks: each recorded free copies registers and stack as an allocation does, so
  // the profile says where blocks were freed (docs/heap.md, "Free stacks").
  bool heap_free_stacks = false;
  // --heap-stacks=copy: every record copies its stack for sprof to unwind, instead of the
  // interposer walking it in the process (docs/heap.md, "The in-process stack walk").
  bool heap_copy_stacks = false;
  // --no-cpu: no CPU samples (only what describes the processes), for allocations only.
  bool sample_cpu = true;
  // How the profile presents what was recorded.
  // The profile's name (meta.product); empty: the command's basename, or "PID n".
  std::string profile_name;
  // Up to this many command-line arguments are appended to each process's name (0: none).
  int process_name_args = 0;
  // A "CPUs" process with one track per CPU: the samples taken there, by thread.
  bool per_cpu_threads = false;
  // With per_cpu_threads: one marker per stretch a thread ran on a CPU.
  bool cswitch_markers = false;
  // --symbol-dir: where the unwinder, like the symbolicator, looks for separate debug files
  // (a stripped library's .debug_frame) before the system's debug roots.
  std::vector<std::string> symbol_dirs;
};

// Errc::kInvalidArgument, saying what is wrong, for contradictory or out-of-range choices (no
// target or several, a negative duration, iterations or --kill-on-stop without a command).
Result<void> check_record_options(const RecordOptions& options);

}  // namespace sprof::recorder
