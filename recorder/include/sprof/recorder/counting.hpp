// sprof/recorder/counting.hpp
//
// `sprof stat`: counting, not sampling. Launches the command stopped (or attaches to running
// processes), opens counting perf events on it that follow everything it creates (inherit),
// lets it run, and reads what the kernel counted: for the whole process tree, and for each
// thread. Nothing is sampled; the only records read are the kernel's per-thread final counts.
//
// Per-thread counts (docs/stat.md, "Per thread"): each counter is opened per CPU with inherit and
// inherit_stat, so when any thread the counter followed exits, the kernel writes that thread's
// own final count into the counter's ring (PERF_RECORD_READ) before folding it into the total.
// That gives exact rows for every thread, including ones that lived a microsecond, which
// counters opened per thread as threads are discovered could not: they would miss each thread's
// start, and every thread that ends before it is seen. The thread the counter was opened on gets
// the total less its descendants' rows.
//
// This module measures; it does not derive ratios, scale multiplexed counts or print. The CLI
// does (cli/stat_metrics.hpp).
//
// Threading: use a CountingSession from one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sprof/convert/exit_status.hpp"
#include "sprof/core/result.hpp"
#include "sprof/recorder/session.hpp"

namespace sprof::recorder {

// What `sprof stat` can count (perf's names and meanings).
enum class CounterEvent {
  kTaskClock,        // CPU time of the counted tasks, ns
  kContextSwitches,  // voluntary and involuntary
  kCpuMigrations,
  kPageFaults,  // minor and major
  kCycles,
  kInstructions,
  kBranches,
  kBranchMisses,
  kCacheReferences,
  kCacheMisses,
};

// The -e names, in the order the report lists them (which is also the default set).
const std::vector<std::pair<std::string, CounterEvent>>& counter_events();
std::string counter_event_name(CounterEvent event);
// Counters opened together as one group, so the kernel schedules them on the PMU together and
// their ratios (instructions per cycle, miss rates) come from the same time slices. Events of one
// group number share it; each event belongs to exactly one.
int counter_group(CounterEvent event);
// The perf_event_attr type and config of `event` (PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE).
std::pair<uint32_t, uint64_t> counter_type_config(CounterEvent event);

struct CountOptions {
  std::vector<std::string> command;      // argv to launch, or empty with attach_pids
  std::vector<std::string> environment;  // "NAME=VALUE" for the command
  std::vector<int> attach_pids;          // -p: count these running processes instead
  double duration_s = 0;                 // -d: stop after this long (0: when the targets end)
  std::vector<CounterEvent> events;      // empty: every event of counter_events()
};

// One counter as the kernel read it, unscaled. time_running < time_enabled means the kernel
// multiplexed it (more hardware counters asked for than the PMU has): it counted only part of
// the time.
struct CounterReading {
  uint64_t value = 0;
  uint64_t time_enabled_ns = 0;
  uint64_t time_running_ns = 0;

  CounterReading& operator+=(const CounterReading& o);
  CounterReading& operator-=(const CounterReading& o);
};

// A counter this machine cannot count, and why ("no hardware PMU: ..."), so that it is named
// instead of shown as zero.
struct MissingCounter {
  CounterEvent event;
  std::string reason;
};

// One thread's own counts: exited threads' final counts; for a thread a counter was opened on,
// its total less the rows of the threads it created. In attach mode a thread created during the
// count and still running at its end has no row; it is counted in its creator's.
struct ThreadCounts {
  int pid = 0;
  int tid = 0;
  std::string name;                      // the thread's comm
  std::vector<CounterReading> readings;  // parallel to Counts::events
};

struct Counts {
  std::vector<CounterEvent> events;     // the events counted, in counter_events() order
  std::vector<MissingCounter> missing;  // asked for, not countable here
  std::vector<CounterReading> totals;   // the whole tree, parallel to `events`
  std::vector<ThreadCounts> threads;    // ascending by (pid, tid)
  double wall_s = 0;                    // from exec (or attach) to the end of the count
  convert::ExitStatus status;           // the launched command's
  bool user_only = false;               // kernel-mode counting refused (perf_event_paranoid)
  bool stopped_early = false;           // -d or a stop request ended it
  uint64_t lost_records = 0;            // per-thread records the kernel could not write
};

class CountingSession {
 public:
  // Launches options.command (stopped until its counters are open; they start at its exec) or
  // attaches to options.attach_pids. Errc::kExecFailed when the command cannot be executed,
  // kUnsupported when none of the events can be counted here.
  static Result<std::unique_ptr<CountingSession>> start(const CountOptions& options);
  ~CountingSession();

  // Counts until the targets end, -d elapses or `control` says to stop (signals are forwarded
  // to a launched command, which is waited for, as `Session::run` does).
  Result<Counts> run(const RunControl& control);

 private:
  struct Impl;
  explicit CountingSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::recorder
