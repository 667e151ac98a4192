// ProfileConverter: CPU deltas from context switches and off-CPU samples
// (docs/firefox-profiler-format.md, "CPU deltas").
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

ProfileConverter::ThreadState* ProfileConverter::known_thread(uint32_t pid, uint32_t tid) {
  auto it = threads_.find(tid);
  return it != threads_.end() && it->second.pid == pid ? &it->second : nullptr;
}

PerCpuTracks::Task ProfileConverter::cpu_task(const ThreadState& ts) {
  const ProcessName& name = processes_.at(ts.pid).name;
  const profile::Thread& t = profile_.processes[ts.image].threads[ts.thread];
  PerCpuTracks::Task task;
  task.pid = ts.pid;
  task.tid = static_cast<uint32_t>(t.tid);
  task.process_name = name.executable();
  task.thread_name = task.tid == task.pid ? std::string_view(name.executable()) : t.name;
  task.track_key = (static_cast<uint64_t>(ts.image) << 32) | ts.thread;
  return task;
}

void ProfileConverter::note_running(const perf::SampleId& id) {
  // tid 0 is the idle task, or a record without a sample_id trailer.
  if (id.tid == 0) return;
  cpu_.running(id.tid, id.time, id.cpu);
  if (per_cpu_) {
    if (ThreadState* ts = known_thread(id.pid, id.tid)) {
      per_cpu_->running(id.cpu, cpu_task(*ts), id.time);
    }
  }
}

void ProfileConverter::keep_switch_sample(ThreadState& ts, const perf::SampleRecord& s) {
  // Not a sample of its own: whether the thread blocks with this stack is said by the switch
  // record that follows (perf_event_task_sched_out samples first, then writes the record).
  cpu_.running(s.id.tid, s.id.time, s.id.cpu);
  ts.off_cpu.pending = s;
  if (s.stack_user.borrowed()) borrowed_pending_.push_back(s.id.tid);
}

void ProfileConverter::own_kept_stacks() {
  // Most pending samples met their switch record in the same batch and are gone already.
  for (const uint32_t tid : borrowed_pending_) {
    if (auto it = threads_.find(tid); it != threads_.end() && it->second.off_cpu.pending) {
      it->second.off_cpu.pending->stack_user.own();
    }
  }
  borrowed_pending_.clear();
}

void ProfileConverter::record_sample(ThreadState& ts, std::optional<uint32_t> stack,
                                     const perf::SampleRecord& s) {
  // What the sample's period says of CPU time: the clock events count it; cycles and the other
  // events do not.
  const std::optional<uint64_t> period_cpu_ns =
      options_.period_is_cpu_ns ? std::optional<uint64_t>(s.period) : std::nullopt;
  // Without switch records a gap between ticks may be time off CPU, and without kernel-mode
  // samples time in the kernel: only with both is it a stall.
  const bool bounds_stalls = period_cpu_ns && options_.switch_records && options_.ticks_in_kernel;
  const CpuAccounting::Taken taken = take_cpu(
      s.id.tid, s.id.time,
      bounds_stalls ? std::optional(CpuAccounting::ClockTick{*period_cpu_ns}) : std::nullopt,
      s.id.cpu);
  ts.off_cpu.last_on_cpu_stack = stack;
  if (options_.switch_records && taken.cpu_ns) {
    add_thread_sample(ts, stack, s.id.time, taken.cpu_ns, taken.since_ns);
  } else {
    // No switch records, or the thread's start is unknown: the period's CPU time since the
    // thread's previous sample, if the event counts any.
    add_thread_sample(ts, stack, s.id.time, period_cpu_ns, std::nullopt);
  }
  if (per_cpu_) {
    per_cpu_->add_sample(s.id.cpu, cpu_task(ts), profile_thread(ts), stack, s.id.time,
                         period_cpu_ns);
  }
  ++stats_.samples;
}

CpuAccounting::Taken ProfileConverter::take_cpu(uint32_t tid, uint64_t time_ns,
                                                std::optional<CpuAccounting::ClockTick> tick,
                                                uint32_t cpu) {
  const CpuAccounting::Taken taken = cpu_.take(tid, time_ns, tick, cpu);
  if (taken.stalled_ns > 0) {
    stats_.cpu_stalls += taken.stalls;
    stats_.cpu_stalled_ns += taken.stalled_ns;
    stats_.cpu_stall_credited_ns += taken.stall_credited_ns;
  }
  if (taken.corrected_ns > 0)
    stats_.cpu_count_removed_ns += static_cast<uint64_t>(taken.corrected_ns);
  if (taken.corrected_ns < 0)
    stats_.cpu_count_added_ns += static_cast<uint64_t>(-taken.corrected_ns);
  return taken;
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

// The time a switch-out of `ts` really happened: its off-CPU sample, taken just before the
// record with the same clock read before its stack copy, when there is one.
uint64_t ProfileConverter::switch_out_time(const ThreadState* ts, uint64_t record_ns) const {
  if (ts == nullptr || !ts->off_cpu.pending || ts->off_cpu.pending->id.time > record_ns) {
    return record_ns;
  }
  return ts->off_cpu.pending->id.time;
}

void ProfileConverter::note_cpu_wide_switch_out(const perf::SwitchRecord& r) {
  if (!r.out) return;
  // The kernel writes the CPU-wide record right after picking the next task, before the
  // outgoing task's own SWITCH(out) (cpu_accounting.hpp): the better time for both ends.
  ThreadState* prev = r.id.tid != 0 ? known_thread(r.id.pid, r.id.tid) : nullptr;
  const uint64_t left_ns = switch_out_time(prev, r.id.time);
  if (prev != nullptr && options_.switch_side_band) cpu_.switched_out(r.id.tid, left_ns);
  if (r.next_prev_tid != 0 && threads_.contains(r.next_prev_tid)) {
    cpu_.picked(r.next_prev_tid, left_ns);
  }
}

void ProfileConverter::on_switch(const perf::SwitchRecord& r) {
  if (r.cpu_wide) {
    note_cpu_wide_switch_out(r);
    if (options_.switch_side_band) return;  // the per-task records say the rest
  }
  const uint32_t tid = r.id.tid;
  if (tid == 0) return;
  ThreadState* ts = known_thread(r.id.pid, tid);
  const uint64_t left_ns = r.out ? switch_out_time(ts, r.id.time) : r.id.time;
  if (per_cpu_ && ts != nullptr) {
    if (r.out) {
      per_cpu_->switched_out(r.id.cpu, cpu_task(*ts), left_ns);
    } else {
      per_cpu_->running(r.id.cpu, cpu_task(*ts), cpu_.switch_in_time(tid, r.id.time));
    }
  }
  if (r.out) {
    cpu_.switched_out(tid, left_ns);
    if (ts == nullptr) return;
    OffCpuState& off = ts->off_cpu;
    // Only a voluntary switch is blocking; a preempted thread is still runnable.
    if (!r.preempted && off.pending && off.pending->id.time <= r.id.time) {
      off.blocked = OffCpuState::Blocked{intern_sample_stack(*ts, *off.pending), left_ns};
    }
    off.pending.reset();
    return;
  }
  if (ts != nullptr) {
    add_off_cpu_samples(*ts, tid, r.id.time);
    ts->off_cpu.pending.reset();
  }
  ++stats_.cpu_switch_ins;
  if (cpu_.switched_in(tid, r.id.time, r.id.cpu) == CpuAccounting::SwitchInStart::kAtRecord) {
    ++stats_.cpu_switch_ins_without_pick;
  }
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
    const CpuAccounting::Taken taken = take_cpu(tid, time);
    add_thread_sample(ts, blocked.stack, time, taken.cpu_ns.value_or(0), taken.since_ns);
    ++stats_.samples;
    ++stats_.off_cpu_samples;
  }
}

void ProfileConverter::close_thread_activity(ThreadState& ts, uint32_t tid, uint64_t time_ns) {
  add_off_cpu_samples(ts, tid, time_ns);
  if (options_.switch_records) {
    const CpuAccounting::Taken taken = take_cpu(tid, time_ns);
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
