// ProfileConverter: CPU deltas from context switches and off-CPU samples (contract section 4).
//
// Per sample, threadCPUDelta is the CPU time the thread used since its previous sample
// (CpuAccounting). Where a thread blocks, the context-switch event's sample gives its stack and
// the following PERF_RECORD_SWITCH(out) says whether it blocked (voluntary) or was preempted; a
// blocked interval becomes off-CPU samples at switch-in (off_cpu.hpp). The CPU a thread used
// after its last sample is carried by one final sample at its exit, so the deltas of a thread add
// up to its CPU time, short-lived threads included.
#include <algorithm>

#include "sprof/convert/profile_converter.hpp"

namespace sprof::convert {

void ProfileConverter::note_running(const perf::SampleId& id) {
  // tid 0 is the idle task, or a record without a sample_id trailer.
  if (id.tid != 0) cpu_.running(id.tid, id.time);
}

void ProfileConverter::keep_switch_sample(ThreadState& ts, const perf::SampleRecord& s) {
  // Not a sample of its own: whether the thread blocks with this stack is said by the switch
  // record that follows (perf_event_task_sched_out samples first, then writes the record).
  cpu_.running(s.id.tid, s.id.time);
  ts.off_cpu.pending = s;
}

void ProfileConverter::record_sample(ThreadState& ts, std::optional<uint32_t> stack,
                                     const perf::SampleRecord& s) {
  const CpuAccounting::Taken taken = cpu_.take(s.id.tid, s.id.time);
  ts.off_cpu.last_on_cpu_stack = stack;
  if (options_.switch_records && taken.cpu_ns) {
    add_thread_sample(ts, stack, s.id.time, taken.cpu_ns, taken.since_ns);
  } else {
    // No switch records, or the thread's start is unknown: the cpu-clock period is its CPU time
    // since its previous sample; for the cycles event there is no CPU time to give.
    add_thread_sample(ts, stack, s.id.time,
                      options_.period_is_cpu_ns ? std::optional<uint64_t>(s.period) : std::nullopt,
                      std::nullopt);
  }
  ++stats_.samples;
}

void ProfileConverter::add_thread_sample(ThreadState& ts, std::optional<uint32_t> stack,
                                         uint64_t time_ns, std::optional<uint64_t> cpu_ns,
                                         std::optional<uint64_t> cpu_since_ns) {
  profile::Thread& t = profile_thread(ts);
  const double time_ms = to_ms(time_ns);
  if (t.samples().empty() && cpu_since_ns && cpu_ns.value_or(0) > 0) {
    const double lead_ms = std::max(to_ms(*cpu_since_ns), t.register_time_ms);
    if (lead_ms < time_ms) t.add_sample(profile::Sample{std::nullopt, lead_ms, 0});
  }
  t.add_sample(profile::Sample{stack, time_ms, cpu_ns});
}

void ProfileConverter::on_switch(const perf::SwitchRecord& r) {
  const uint32_t tid = r.id.tid;
  if (tid == 0) return;
  auto it = threads_.find(tid);
  ThreadState* ts = it != threads_.end() && it->second.pid == r.id.pid ? &it->second : nullptr;
  if (r.out) {
    cpu_.switched_out(tid, r.id.time);
    if (ts == nullptr) return;
    OffCpuState& off = ts->off_cpu;
    // Only a voluntary switch is blocking; a preempted thread is still runnable.
    if (!r.preempted && off.pending && off.pending->id.time <= r.id.time) {
      off.blocked = OffCpuState::Blocked{intern_sample_stack(*ts, *off.pending), r.id.time};
    }
    off.pending.reset();
    return;
  }
  if (ts != nullptr) {
    add_off_cpu_samples(*ts, tid, r.id.time);
    ts->off_cpu.pending.reset();
  }
  cpu_.switched_in(tid, r.id.time);
}

void ProfileConverter::add_off_cpu_samples(ThreadState& ts, uint32_t tid, uint64_t until_ns) {
  OffCpuState& off = ts.off_cpu;
  if (!off.blocked) return;
  const OffCpuState::Blocked blocked = *off.blocked;
  off.blocked.reset();
  const SampleGrid grid{options_.origin_monotonic_ns,
                        std::max<uint64_t>(1, static_cast<uint64_t>(options_.interval_ms * 1e6))};
  off_cpu_times_.clear();
  off_cpu_sample_times(blocked.since_ns, until_ns, grid, off_cpu_times_);
  for (uint64_t time : off_cpu_times_) {
    // The thread is off CPU: only the first sample can carry CPU, what the thread used between
    // its previous sample and blocking.
    const CpuAccounting::Taken taken = cpu_.take(tid, time);
    add_thread_sample(ts, blocked.stack, time, taken.cpu_ns.value_or(0), taken.since_ns);
    ++stats_.samples;
    ++stats_.off_cpu_samples;
  }
}

void ProfileConverter::close_thread_activity(ThreadState& ts, uint32_t tid, uint64_t time_ns) {
  add_off_cpu_samples(ts, tid, time_ns);
  if (options_.switch_records) {
    const CpuAccounting::Taken taken = cpu_.take(tid, time_ns);
    if (taken.cpu_ns.value_or(0) > 0) {
      add_thread_sample(ts, ts.off_cpu.last_on_cpu_stack, time_ns, taken.cpu_ns, taken.since_ns);
      ++stats_.samples;
    }
  }
  cpu_.forget(tid);
}

void ProfileConverter::close_all_activity(uint64_t end_ns) {
  for (auto& [tid, ts] : threads_) {
    // Still blocked at the end: off CPU until the end of the recording.
    add_off_cpu_samples(ts, tid, end_ns);
    // Still running: known to run until its last record (not beyond: sampling may have stopped).
    if (const auto last = cpu_.last_seen(tid)) close_thread_activity(ts, tid, *last);
  }
}

}  // namespace sprof::convert
