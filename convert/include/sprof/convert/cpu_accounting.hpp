// sprof/convert/cpu_accounting.hpp
//
// Real CPU time per thread, from PERF_RECORD_SWITCH records: a thread is on CPU from its
// switch-in to its switch-out (preempted or not), so the CPU time between two samples is the sum
// of the on-CPU intervals between them. This is what each sample's `threadCPUDelta` carries
// (docs/firefox-profiler-format.md, "CPU deltas": CPU consumed between the previous sample and this
// one, in ns).
//
// A thread is also known to be on CPU whenever it produces a record in its own context (sample,
// comm, mmap, fork of a child, exit: the sample_id_all trailer names the current task). That
// covers threads that were running when recording started and never switched yet (the launched
// command is enabled at exec, which emits no switch-in).
//
// Where each interval starts and ends decides whether the deltas match the thread's own clock
// (CLOCK_THREAD_CPUTIME_ID), which the kernel starts when the scheduler picks the thread and
// stops when it picks the next one. The SWITCH records are late at both ends: SWITCH(in) is
// written after the switch itself (address-space switch, FPU restore, perf scheduling the
// thread's events in: ~13 us on a VM) and SWITCH(out) after the off-CPU sample with its stack
// copy (~11 us, more under load). So the converter passes better times where the recording
// has them (`switched_out` gets the off-CPU sample's time, `picked` the CPU-wide switch-out
// naming the thread as next); without them each end keeps its record's time and the two
// errors partly cancel (docs/design.md, "CPU deltas").
//
// A clock event's samples (cpu-clock, task-clock) say more. Whatever timer is armed for a
// running thread fires within one period: a per-task event's fires after what is left of its
// period (at most one), a CPU-wide event's each period of the CPU's time. So a stretch on CPU
// that starts at a switch-in or at a tick and runs to a tick with no switch between lasts at
// most one period, give or take the timer's latency. A longer stretch means the CPU itself
// stopped: on a VM the host ran something else (steal). The thread's own clock leaves steal out
// (paravirt steal accounting) while the switch records cannot see it, so such a stretch is
// credited one period plus the timer's slack, and the rest is counted as stalled. (Only the
// stretch since the last switch-in is bounded, not the thread's time since its last tick: perf
// may hand a task's events to a sibling task at a switch, timers included, so a thread's ticks
// are not its own timer's.) A stretch that starts so and ends at a switch-out with no tick in
// between is bounded the same way: its timer would have fired had it run longer. This is where
// a stall most often hides on a busy host, since the switch path itself traps to the hypervisor
// (the PMU and timer updates of perf's sched-out), which may run something else before the
// guest goes on; seen in CI as both of two busy threads 6-7 ms over their clocks.
//
// Where the scheduler's own count is recorded (the sched_stat_runtime tracepoint counted per
// thread and CPU: recorder/src/perf/runtime_events.cpp), it settles the question. That count is
// exactly what the thread's clock adds up (the same `delta_exec` in update_curr, steal left
// out), but it arrives only now and then: as of a `counted` call, the thread's count on that
// CPU is exact. So each count is compared with what the switch records credited the thread on
// that CPU up to the same moment, and the difference (a stall credited, a late timer's time left
// out, the switch records' own lateness) is taken out of, or added to, the deltas that follow.
// The deltas then add up to the scheduler's count at every count, and between counts they are
// the switch records' estimate as above.
//
// One flaw of the count: the tracepoint is counted by the event of whichever task's context
// runs it, and a thread that wakes a task on another CPU updates that CPU's running task from
// its own context: up to a tick of someone else's time (seen: 3.1 ms) lands in its count. A
// thread cannot run longer than it is on a CPU, so each growth of the count is capped at the
// time the switch records put it on that CPU since the previous count, plus their error per
// switch-in (count_slack_ns), and the count never runs ahead of them over the whole share by
// more than that, besides the lateness of switch-ins that had no pick (CpuShare::late_starts_ns):
// other tasks' time also comes in pieces too small for one step's cap.
//
// Time only moves forward per thread; a timestamp older than the thread's state (a late record,
// see RecordMerger) adds nothing rather than a negative interval.
//
// Pure bookkeeping keyed by tid; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sprof::convert {

class CpuAccounting {
 public:
  struct Taken {
    // CPU ns used since `since_ns`; nullopt when the thread was unknown until this call, so what
    // it used before is unknown too.
    std::optional<uint64_t> cpu_ns;
    uint64_t since_ns = 0;    // the previous take, or when the thread was first seen
    uint64_t stalled_ns = 0;  // left out of cpu_ns: taken for a stopped CPU (see above)
    // Of a stalled stretch, what cpu_ns still counts (a period plus the slack): the thread's
    // own CPU if a late timer made the stretch long, steal if the CPU stopped.
    uint64_t stall_credited_ns = 0;
    // What the scheduler's counts corrected in cpu_ns: positive when the switch records had
    // credited more than the thread ran (taken out), negative when less (added).
    int64_t corrected_ns = 0;
    // How many stretches stalled_ns came from: this take's own and those that ended at
    // switch-outs since the previous take.
    uint32_t stalls = 0;
  };
  // A sample of a clock event whose timer fires every `period_ns`.
  struct ClockTick {
    uint64_t period_ns = 0;
  };
  // The longest a clock event's timer fires late on a running CPU: above it, a stretch to a
  // tick is a stall. On an idle VM the latency stays under 0.2 ms. A busy host may also deliver
  // a running vCPU's timer interrupt late (up to ~10 ms seen) while the thread's clock runs
  // on: the records cannot tell that from a stall, so what the bound leaves out and what it
  // still credits are both reported (Taken::stalled_ns, stall_credited_ns).
  static uint64_t timer_slack_ns(uint64_t period_ns);

  // The CPU a record does not name.
  static constexpr uint32_t kUnknownCpu = UINT32_MAX;
  // The most a switch-in's record is taken to be late after the switch itself (the thread's
  // clock starts at the pick; docs/design.md, "CPU deltas": 13-19 us measured on a VM, up to
  // ~55 us on average over a loaded run's switch-ins).
  static constexpr uint64_t kSwitchInLatenessNs = 50'000;

  // `tid` is on CPU `cpu` at `time_ns` (a record from its own context).
  void running(uint32_t tid, uint64_t time_ns, uint32_t cpu = kUnknownCpu);
  // PERF_RECORD_SWITCH into / out of `tid`.
  // A switch-in starts at the thread's pick time when `picked` gave one since its last
  // switch-out, else at `time_ns`, late by the switch itself (up to kSwitchInLatenessNs): the
  // result says which.
  enum class SwitchInStart { kAtPick, kAtRecord };
  SwitchInStart switched_in(uint32_t tid, uint64_t time_ns, uint32_t cpu = kUnknownCpu);
  void switched_out(uint32_t tid, uint64_t time_ns);
  // When the switch-in of `tid` recorded at `record_ns` started (what switched_in will use).
  uint64_t switch_in_time(uint32_t tid, uint64_t record_ns) const;
  // The scheduler picked `tid` to run next at `time_ns` (a CPU-wide switch-out record naming
  // it); its switch-in follows.
  void picked(uint32_t tid, uint64_t time_ns);

  // The CPU time `tid` used since the previous take, up to `time_ns`, and resets it. A running
  // thread counts as running until `time_ns`; an unknown thread starts being tracked as running
  // from `time_ns`.
  // `tick` says that this take is a clock event's sample; `cpu` is where it was taken, when the
  // thread is running.
  Taken take(uint32_t tid, uint64_t time_ns, std::optional<ClockTick> tick = std::nullopt,
             uint32_t cpu = kUnknownCpu);
  // The scheduler has counted `runtime_ns` of CPU time for `tid` on `cpu`, from the start of
  // the count to `time_ns`, when the thread is running there (the count's sample is taken in
  // the thread's own context). Later takes are corrected to agree with it.
  void counted(uint32_t tid, uint32_t cpu, uint64_t time_ns, uint64_t runtime_ns);
  // Records were lost or sampling was throttled: a long stretch to the next tick no longer means
  // a stall, until each thread's next switch-in.
  void forget_ticks();
  // The latest time `tid` was seen running or switching (nullopt: unknown thread).
  std::optional<uint64_t> last_seen(uint32_t tid) const;
  // The thread exited; its tid may be reused by a new thread.
  void forget(uint32_t tid) { threads_.erase(tid); }

 private:
  // A thread's time on one CPU: what the switch records say and what the scheduler counted.
  struct CpuShare {
    uint32_t cpu = kUnknownCpu;
    uint64_t on_cpu_ns = 0;               // on CPU by the switch records, stalls included
    uint64_t credited_ns = 0;             // of that, what the deltas were given (stalls left out)
    uint64_t last_count_ns = 0;           // the count at the latest `counted`
    uint64_t on_cpu_at_count_ns = 0;      // on_cpu_ns then
    uint64_t counted_ns = 0;              // the count's growth, each step capped (see counted)
    int64_t discrepancy_ns = 0;           // credited_ns - counted_ns at the latest `counted`
    uint32_t switch_ins_since_count = 0;  // switch-ins here since the latest `counted`
    // What the count may be ahead by over the whole share: a switch-in's lateness for each one
    // that started at its own record (no pick seen).
    uint64_t late_starts_ns = 0;
  };
  struct ThreadCpu {
    std::optional<uint64_t> on_cpu_since;  // set while the thread is on CPU
    uint64_t unreported_ns = 0;            // closed on-CPU intervals since the last take
    uint64_t reported_until = 0;           // time of the last take (or first sight)
    uint64_t last_seen = 0;
    uint64_t off_cpu_since = 0;         // end of the last on-CPU interval
    std::optional<uint64_t> picked_at;  // pick time of the switch-in to come
    // The open on-CPU stretch began at a switch-in or a tick: a timer was armed at its start.
    bool stretch_bounded = false;
    uint64_t tick_period_ns = 0;  // the latest tick's period (0: no tick bounds this thread)
    // Stalls of stretches closed since the last take (switch-outs), reported by the next one.
    uint32_t stalls = 0;
    uint64_t stalled_ns = 0;
    uint64_t stall_credited_ns = 0;
    uint32_t stretch_cpu = kUnknownCpu;  // where the open stretch runs, once a record said
    std::vector<CpuShare> shares;        // per CPU the thread ran on (a few entries)
    // Of the shares' discrepancies together, what earlier takes already corrected.
    int64_t corrected_ns = 0;
  };
  // Adds `ns` on CPU, in the open stretch's CPU, to what the next take reports; `left_out_ns`
  // more were on CPU but left out as a stall.
  static void credit(ThreadCpu& t, uint64_t ns, uint64_t left_out_ns = 0);
  // Credits a stretch on CPU that ran `ran_ns`; with `period_ns` > 0 a timer of that period was
  // armed at its start and had not fired, so what is beyond a period and the timer's slack is
  // a stall: left out and noted in `t` for the next take.
  static void credit_stretch(ThreadCpu& t, uint64_t ran_ns, uint64_t period_ns);
  // How much more than its time on a CPU a thread's count there may grow by and still be its
  // own: the switch records' error, from `switch_ins` switch-ins there since the last count.
  static uint64_t count_slack_ns(uint32_t switch_ins);
  static CpuShare& share(ThreadCpu& t, uint32_t cpu);
  // The pick that started the switch-in recorded at `record_ns`, if one was seen.
  static std::optional<uint64_t> pick_time(const ThreadCpu& t, uint64_t record_ns);
  // The open stretch runs on `cpu` (kUnknownCpu: no news).
  static void note_cpu(ThreadCpu& t, uint32_t cpu);
  // `running`, for a thread whose state is at hand.
  static void mark_running(ThreadCpu& t, uint64_t time_ns, uint32_t cpu);
  // The state of `tid`, created as "first seen at `time_ns`" when new.
  ThreadCpu& state(uint32_t tid, uint64_t time_ns, bool& created);

  std::unordered_map<uint32_t, ThreadCpu> threads_;
};

}  // namespace sprof::convert
