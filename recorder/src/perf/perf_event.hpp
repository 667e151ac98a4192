// recorder/src/perf/perf_event.hpp
//
// The sampling events of one recording: one perf event per online CPU for the target task(s),
// each with its own mmap ring. `PerfEvents` is the live `convert::RecordSource`: its rings are read
// in rounds and merged into one time-ordered record stream (RingRecordSource).
//
// Event choice (-e): by default hardware `cycles` when the machine has a PMU, otherwise software
// `cpu-clock` (hrtimer based; its sample period is then in nanoseconds of CPU time). An event
// the user named is opened or refused, never replaced: the error lists the events this machine
// has. `event_name()` says which one is in use so the CLI can tell the user.
//
// The attr is built once here; its `SampleLayout` is derived from exactly that attr and is the
// only thing the parser is given (never re-declared at the parse site). The context-switch events
// of off-CPU stacks are a second event in the same rings, told apart by their ids.
//
// Threading: not thread-safe; open, poll and read from one thread.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "perf/ring_buffer.hpp"
#include "perf/ring_record_source.hpp"
#include "sprof/convert/record_source.hpp"
#include "sprof/core/result.hpp"
#include "sprof/core/unique_fd.hpp"
#include "sprof/perf/event_table.hpp"
#include "sprof/recorder/options.hpp"

namespace sprof::recorder::perf {

struct EventConfig {
  // false (--no-cpu): no sampling at all, only the side-band records (mmap, comm, fork, exit)
  // that describe the processes, from a dummy event; for recordings of allocations only.
  bool sample_cpu = true;
  SamplingEvent event = SamplingEvent::kAuto;
  int frequency_hz = 1000;
  bool kernel_callchain = true;
  // DWARF mode: PERF_SAMPLE_REGS_USER (arch::x86_64::kUnwindRegsMask) + PERF_SAMPLE_STACK_USER.
  bool user_regs_stack = false;
  // attr.sample_stack_user: a multiple of 8 below 65535 (the kernel's limits).
  uint32_t stack_user_bytes = 8192;
  bool context_switch = true;  // PERF_RECORD_SWITCH
  // Off-CPU stacks: a second event per CPU and task, PERF_COUNT_SW_CONTEXT_SWITCHES sampling
  // every switch, writes into the same ring (context_switch_events.cpp). Needs kernel sampling.
  bool off_cpu = false;
  // The scheduler's count of each thread's CPU time, sampled into the same rings
  // (runtime_events.cpp), when this machine allows it. Per task only: a CPU-wide event counts
  // every task of the CPU together.
  bool runtime_counts = true;
  // The task to sample (a process's main thread, or any tid). With `inherit` its future
  // children and threads are sampled too.
  pid_t pid = -1;
  // Additional already-running threads (attach): each gets an event per CPU whose output is
  // redirected (PERF_EVENT_IOC_SET_OUTPUT) into that CPU's ring. Empty for a launched child.
  std::vector<pid_t> extra_tids;
  bool inherit = true;
  // Start disabled and let the kernel enable the events when `pid` calls exec (launch mode).
  // When false the events count from the moment they are opened.
  bool enable_on_exec = true;
  // Data pages per CPU ring (a power of two). 0 picks a size for ~0.25 s of data at the given
  // frequency and stack size, between 512 KiB and 4 MiB.
  size_t ring_pages = 0;
};

enum class EventKind {
  kCycles,
  kCpuClock,
  kTaskClock,
  kInstructions,
  kCacheMisses,
  kPageFaults,
  kContextSwitches,
  kSideBandOnly,  // --no-cpu: a dummy event, only for its mmap, comm, fork and exit records
};

// The kinds `PerfEvents::open` tries for `event`, in order (kAuto: cycles, then cpu-clock).
std::vector<EventKind> event_kinds_to_try(SamplingEvent event);

// The events of `sampling_events()` that this machine can open (probed with a counting event on
// sprof itself), by name.
std::vector<std::string> available_event_names();

// The attr `PerfEvents::open` passes to perf_event_open for `kind` (pure; exposed for tests and
// for raw dumps). `ring_bytes` sets the wakeup watermark; `max_stack` is sample_max_stack.
perf_event_attr make_sample_attr(const EventConfig& config, EventKind kind, size_t ring_bytes,
                                 uint16_t max_stack);
// The attr of the context-switch event that goes with `sample_attr` (pure; for tests): the same
// sample_type, stack settings and clock, so one `SampleLayout` parses both, but no side-band
// records (the sampling event already asks for them).
perf_event_attr make_context_switch_attr(const perf_event_attr& sample_attr);
// The attr of the per-CPU dummy event whose PERF_RECORD_SWITCH_CPU_WIDE records give switch-in
// times (cpu_wide_switch_events.cpp; pure, for tests).
perf_event_attr make_cpu_wide_switch_attr(const perf_event_attr& sample_attr);
// The attr of the event that samples the scheduler's CPU-time count of each thread
// (runtime_events.cpp; pure, for tests), given the sched:sched_stat_runtime tracepoint's id.
perf_event_attr make_runtime_attr(const perf_event_attr& sample_attr, uint64_t tracepoint_id);
// The number a kernel file holds (a sysctl under /proc/sys, a tracepoint's id in tracefs);
// nullopt when it cannot be read or does not start with one.
std::optional<long> read_kernel_number(const char* path);
// That id, from tracefs; nullopt when tracefs is not there or not readable (not root).
std::optional<uint64_t> sched_runtime_tracepoint_id();
// A tracepoint's id (`relative_path` inside tracefs, e.g. "events/sched/<name>/id") read from a
// tracefs that sprof mounts in a mount namespace of its own, which ends at once
// (tracepoint_id.cpp); nullopt unless root and the kernel allows it.
std::optional<long> tracepoint_id_from_private_tracefs(const char* relative_path);
// The CPU says it runs under a hypervisor (CPUID leaf 1, ECX bit 31): its CPUs may stall.
bool runs_under_hypervisor();

// Opens the event `attr` for task `tid` on `cpu` (-1: every task on that CPU) and redirects its
// records into the ring of `ring_fd`, that CPU's first event (PERF_EVENT_IOC_SET_OUTPUT: both
// must be on the same CPU and use the same clock). Errors name the event, task and CPU.
Result<UniqueFd> open_into_ring(perf_event_attr& attr, pid_t tid, uint32_t cpu, int ring_fd);

// Maps a ring of `pages` data pages for `fd`, halving on EPERM/ENOMEM: unprivileged users are
// limited by perf_event_mlock_kb (516 KiB per user by default; root is exempt).
Result<MappedRingBuffer> map_ring(int fd, size_t pages);

struct PollStatus {
  bool readable = false;          // some ring crossed its wakeup watermark
  bool all_hung_up = false;       // every event reported POLLHUP: all sampled tasks have exited
  bool exit_fd_readable = false;  // the `exit_fd` given to poll became readable
  bool interrupted = false;       // a signal interrupted poll (EINTR)
};

class PerfEvents final : public convert::RecordSource {
 public:
  // Opens one event per online CPU (per target task), maps the rings, and derives the layout.
  // Errors name the call and its arguments; EACCES/EPERM become kPermissionDenied with the
  // current perf_event_paranoid value.
  static Result<PerfEvents> open(const EventConfig& config);

  PerfEvents(PerfEvents&&) noexcept = default;
  PerfEvents& operator=(PerfEvents&&) noexcept = default;

  EventKind event_kind() const { return kind_; }
  std::string event_name() const;
  // True when kernel sampling was refused (perf_event_paranoid) and events were reopened with
  // exclude_kernel: there are no kernel frames then.
  bool kernel_excluded() const { return attr_.exclude_kernel != 0; }
  const perf_event_attr& attr() const { return attr_; }
  // The events whose records the rings hold: the sampling event, and the context-switch event
  // when off-CPU stacks are on.
  std::vector<sprof::perf::EventSpec> event_specs() const { return reader_.events().specs(); }
  std::vector<uint32_t> cpus() const;
  size_t ring_bytes_per_cpu() const;

  // Adds already-running tasks (attach: threads born after `open` listed them) to every CPU's
  // ring; they are sampled at once. Tasks that no longer exist (ESRCH) are skipped; returns the
  // ones added.
  Result<std::vector<pid_t>> add_tasks(const std::vector<pid_t>& tids);

  Result<void> enable();
  Result<void> disable();

  // Waits up to `timeout_ms` (-1: forever) for any ring to wake us, any event to hang up, or
  // `exit_fd` (if >= 0; a pidfd of the command) to become readable. An event that has hung up
  // (its task and every inherited child have exited) is not waited on again: poll(2) would
  // report the hang-up at once every time, and while the rest of the command's tasks exited the
  // caller's loop would spin. At SCHED_FIFO that spin kept the exiting tasks off its CPU: one
  // recording of 1,600 samples made 104,000 polls (30 without the spin) and printed 90 us of CPU
  // per sample instead of 13. Hung-up events' rings are still read after every poll.
  Result<PollStatus> poll(int timeout_ms, int exit_fd = -1);

  // One read round: drains every ring, parses, and emits through `sink` (in time order) what the
  // merger can release. Cheap when nothing is pending; call after every poll. Always true.
  bool read_available(const sprof::perf::RecordSink& sink) override;
  // Drains the rings one last time and emits everything still buffered (after disable or when
  // the target has exited).
  void flush_all(const sprof::perf::RecordSink& sink) override;

  // An extra input still holds records the last round did not read: poll without waiting.
  bool behind() const { return reader_.behind(); }
  // Reads `input` in the same rounds as the rings (RingRecordSource::add_round_input).
  void add_round_input(RoundInput& input) { reader_.add_round_input(input); }
  // Runs before ring space goes back to the kernel (RingRecordSource::set_before_release).
  void set_before_release(std::function<void()> hook) {
    reader_.set_before_release(std::move(hook));
  }

  ReaderStats stats() const { return reader_.stats(); }
  // True when context-switch events are open (off-CPU stacks will arrive).
  bool off_cpu() const { return off_cpu_; }
  // True when CPU-wide switch records are recorded (exact switch-in times).
  bool cpu_wide_switches() const {
    return !rings_.empty() && rings_.front().cpu_wide_switches.valid();
  }
  // True when the scheduler's CPU-time counts are recorded (for the first task at least).
  bool runtime_counts() const { return runtime_counts_; }

 private:
  struct CpuRing {
    uint32_t cpu;
    std::vector<UniqueFd> fds;  // fds[0] owns the ring; the others SET_OUTPUT into it
    MappedRingBuffer ring;
    // The CPU-wide switch event, also writing into the ring; not polled, as it never hangs up.
    UniqueFd cpu_wide_switches{};
  };
  PerfEvents(EventKind kind, perf_event_attr attr, std::vector<CpuRing> rings,
             sprof::perf::EventTable events);
  static std::vector<RingRecordSource::Ring> ring_views(std::vector<CpuRing>& rings);
  // Opens `attr` for `task` on every CPU, each writing into that CPU's ring, and registers the
  // events' ids (PERF_EVENT_IOC_ID) as event `event_index` of the table, so that their samples
  // can be told apart. All or nothing: the events join the rings only when every CPU worked.
  Result<void> open_beside_sampling(perf_event_attr& attr, pid_t task, size_t event_index);
  // Opens the context-switch event of `task` (open_beside_sampling).
  Result<void> open_context_switch_events(pid_t task);
  // The same for every task of `open` (no-op, with a note, when kernel sampling is excluded).
  Result<void> open_off_cpu_events(const std::vector<pid_t>& tasks);
  // Best effort: opens the runtime-count event of `task` on every CPU, writing into that CPU's
  // ring, or none (with a note unless the task is gone).
  bool open_runtime_events(pid_t task);
  // Best effort: opens the CPU-wide switch event on every CPU, or none (with a note).
  void open_cpu_wide_switches();
  void close_cpu_wide_switches();

  EventKind kind_;
  perf_event_attr attr_;
  std::vector<CpuRing> rings_;
  // Reads `rings_` through pointers into its elements. They stay valid: the vector is never
  // resized after `open`, and moving it (with this object) keeps its storage.
  RingRecordSource reader_;
  bool off_cpu_ = false;
  // The runtime-count event's tracepoint id and place in the event table, when requested and
  // known; runtime_counts_ once its events opened for the first task.
  std::optional<uint64_t> runtime_tracepoint_;
  std::optional<size_t> runtime_event_;
  bool runtime_counts_ = false;
  std::unordered_set<int> hung_up_;  // descriptors of events that reported POLLHUP
  // Whether all `events` open events are in hung_up_ (descriptors are never closed early).
  bool every_event_hung_up(size_t events) const { return events > 0 && hung_up_.size() >= events; }
};

}  // namespace sprof::recorder::perf
