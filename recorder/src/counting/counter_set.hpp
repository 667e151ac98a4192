// recorder/src/counting/counter_set.hpp
//
// The counting events of one `sprof stat`: every requested counter, per CPU, on each task it was
// opened on (the launched command, or each thread of an attached process), with inherit so that
// it follows every thread and process those tasks create. Counters of one group (counter_group)
// share a group leader per (CPU, task). Every counter on a CPU writes its records into one ring
// (PERF_EVENT_IOC_SET_OUTPUT into that CPU's first counter): per CPU because the kernel maps no
// ring for an inherited counter that follows a task on every CPU.
//
// What the rings hold (count_records.hpp) is collected by `drain`, which must run often enough
// that a ring does not fill while many threads exit (the kernel then counts lost records).
//
// Threading: not thread-safe; use from one thread.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "perf/ring_buffer.hpp"
#include "sprof/core/result.hpp"
#include "sprof/core/unique_fd.hpp"
#include "sprof/recorder/counting.hpp"

namespace sprof::recorder::counting {

// A task counters are opened on: a thread, with its process.
struct CountedTask {
  pid_t pid = 0;
  pid_t tid = 0;
};

struct CounterSetConfig {
  std::vector<CounterEvent> events;  // in counter_events() order
  std::vector<CountedTask> tasks;    // each followed with its descendants
  bool enable_on_exec = false;       // launch: start disabled, enabled by tasks[0]'s exec
};

class CounterSet {
 public:
  // Leaves out (in `missing()`) the events this machine lacks; kUnsupported when that is all of
  // them. Refused kernel counting (perf_event_paranoid) is retried for user space only.
  static Result<CounterSet> open(const CounterSetConfig& config);

  CounterSet(CounterSet&&) noexcept = default;
  CounterSet& operator=(CounterSet&&) noexcept = default;

  const std::vector<CounterEvent>& events() const { return events_; }
  const std::vector<MissingCounter>& missing() const { return missing_; }
  bool user_only() const { return user_only_; }
  // The rings' descriptors, for poll(2): readable when a quarter of a ring is full.
  const std::vector<int>& ring_fds() const { return ring_fds_; }

  // Reads every ring: the final counts of exited threads and the names threads took.
  void drain();
  // Stops every counter (and their inherited copies), so that what is read next is one moment.
  Result<void> disable();
  // The totals (every counter read now, summed over CPUs and tasks) and the rows of each thread,
  // as `Counts` holds them: events, missing, totals, threads, user_only and lost_records.
  Result<void> collect(Counts& out);

 private:
  struct Counter {
    UniqueFd fd;
    size_t event = 0;  // index into events_
    size_t task = 0;   // index into tasks_
    size_t cpu = 0;    // index into the online CPUs
  };
  // Readings indexed [event][cpu], combined per event by `across_cpus` at the end.
  using PerEventPerCpu = std::vector<std::vector<CounterReading>>;
  struct ThreadRow {
    int pid = 0;
    size_t task = 0;  // the counted task it descends from
    PerEventPerCpu readings;
  };
  CounterSet() = default;
  Result<void> open_all(const CounterSetConfig& config, bool exclude_kernel,
                        const std::vector<uint32_t>& cpus);
  void add_exit_count(int pid, int tid, uint64_t id, const CounterReading& reading);
  void add_created(int pid, int tid, int parent_tid);
  // The thread whose counts are task `t`'s total less its descendants' rows (see collect).
  CountedTask remainder_task(size_t t) const;

  std::vector<CounterEvent> events_;
  std::vector<MissingCounter> missing_;
  std::vector<CountedTask> tasks_;
  size_t cpu_count_ = 0;
  bool user_only_ = false;
  std::vector<Counter> counters_;
  std::vector<perf::MappedRingBuffer> rings_;  // one per CPU
  std::vector<int> ring_fds_;                  // the counter each ring is mapped for
  std::unordered_map<uint64_t, size_t> counter_by_id_;
  std::map<int, ThreadRow> exited_;   // tid -> its own final counts
  std::map<int, std::string> names_;  // tid -> comm
  // Every thread created under a counted task: tid -> index into tasks_, and its process.
  struct Relative {
    size_t task = 0;
    int pid = 0;
  };
  std::map<int, Relative> family_;
  uint64_t lost_records_ = 0;
};

}  // namespace sprof::recorder::counting
