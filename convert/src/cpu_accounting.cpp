#include "sprof/convert/cpu_accounting.hpp"

#include <algorithm>
#include <utility>

namespace sprof::convert {

CpuAccounting::ThreadCpu& CpuAccounting::state(uint32_t tid, uint64_t time_ns, bool& created) {
  auto [it, inserted] = threads_.try_emplace(tid);
  created = inserted;
  if (inserted) {
    it->second.reported_until = time_ns;
    it->second.last_seen = time_ns;
  }
  it->second.last_seen = std::max(it->second.last_seen, time_ns);
  return it->second;
}

void CpuAccounting::credit(ThreadCpu& t, uint64_t ns, uint64_t left_out_ns) {
  t.unreported_ns += ns;
  if (t.stretch_cpu == kUnknownCpu) return;
  CpuShare& s = share(t, t.stretch_cpu);
  s.credited_ns += ns;
  s.on_cpu_ns += ns + left_out_ns;
}

void CpuAccounting::credit_stretch(ThreadCpu& t, uint64_t ran_ns, uint64_t period_ns) {
  uint64_t stalled_ns = 0;
  if (period_ns > 0) {
    const uint64_t longest = period_ns + timer_slack_ns(period_ns);
    if (ran_ns > longest) {
      stalled_ns = ran_ns - longest;
      ++t.stalls;
      t.stalled_ns += stalled_ns;
      t.stall_credited_ns += longest;
    }
  }
  credit(t, ran_ns - stalled_ns, stalled_ns);
}

uint64_t CpuAccounting::count_slack_ns(uint32_t switch_ins) {
  // The count starts at the scheduler's pick, the switch records' stretch at the pick's CPU-wide
  // record or at the SWITCH(in) record written after the switch (~13 us on a VM, more under
  // load): so the count may run ahead of the records by that much per switch-in, plus a little
  // for the sample's own time (up to 4 us seen idle). Nothing else lets a count grow past the
  // records: what a thread runs between records is in both, and what the records credit as a
  // stall is in on_cpu_ns. The slack is per switch, not a share of the time: other tasks' time
  // that a busy thread's context updates comes in small pieces, and a slack proportional to the
  // interval (it was a sixteenth) let up to 1.2 % of a 300 ms thread's time through in CI
  // (docs/design.md, "CPU deltas").
  constexpr uint64_t kPerCountNs = 20'000;
  return kPerCountNs + uint64_t{switch_ins} * kSwitchInLatenessNs;
}

CpuAccounting::CpuShare& CpuAccounting::share(ThreadCpu& t, uint32_t cpu) {
  for (CpuShare& s : t.shares) {
    if (s.cpu == cpu) return s;
  }
  return t.shares.emplace_back(CpuShare{cpu});
}

void CpuAccounting::note_cpu(ThreadCpu& t, uint32_t cpu) {
  if (cpu != kUnknownCpu) t.stretch_cpu = cpu;
}

void CpuAccounting::running(uint32_t tid, uint64_t time_ns, uint32_t cpu) {
  bool created = false;
  mark_running(state(tid, time_ns, created), time_ns, cpu);
}

void CpuAccounting::mark_running(ThreadCpu& t, uint64_t time_ns, uint32_t cpu) {
  note_cpu(t, cpu);
  // Running without a switch-in seen: either the thread ran since before we saw it, or a
  // switch-in was lost. Either way it runs from now on; the time before is unknown.
  if (!t.on_cpu_since) {
    t.on_cpu_since = time_ns;
    t.stretch_bounded = false;
  }
}

CpuAccounting::SwitchInStart CpuAccounting::switched_in(uint32_t tid, uint64_t time_ns,
                                                        uint32_t cpu) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  t.stretch_cpu = cpu;
  // A second switch-in without a switch-out in between means a lost record: the interval since
  // the first one is not known to be on CPU, so it restarts here.
  const std::optional<uint64_t> pick = pick_time(t, time_ns);
  t.on_cpu_since = pick.value_or(time_ns);
  if (cpu != kUnknownCpu) {
    CpuShare& s = share(t, cpu);
    ++s.switch_ins_since_count;
    // Started at its own record, not at a pick: late by the switch itself, every time, so what
    // the count may be ahead by adds up over the share (count_slack_ns).
    if (!pick) s.late_starts_ns += kSwitchInLatenessNs;
  }
  t.picked_at.reset();
  t.stretch_bounded = true;
  return pick ? SwitchInStart::kAtPick : SwitchInStart::kAtRecord;
}

uint64_t CpuAccounting::switch_in_time(uint32_t tid, uint64_t record_ns) const {
  const auto it = threads_.find(tid);
  if (it == threads_.end()) return record_ns;
  return pick_time(it->second, record_ns).value_or(record_ns);
}

std::optional<uint64_t> CpuAccounting::pick_time(const ThreadCpu& t, uint64_t record_ns) {
  // A pick older than the last switch-out belongs to an earlier switch-in whose record was lost.
  const bool pick_is_ours =
      t.picked_at && *t.picked_at <= record_ns && *t.picked_at >= t.off_cpu_since;
  return pick_is_ours ? t.picked_at : std::nullopt;
}

void CpuAccounting::picked(uint32_t tid, uint64_t time_ns) {
  bool created = false;
  state(tid, time_ns, created).picked_at = time_ns;
}

void CpuAccounting::switched_out(uint32_t tid, uint64_t time_ns) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  if (t.on_cpu_since && time_ns > *t.on_cpu_since) {
    credit_stretch(t, time_ns - *t.on_cpu_since, t.stretch_bounded ? t.tick_period_ns : 0);
  }
  t.on_cpu_since.reset();
  t.off_cpu_since = std::max(t.off_cpu_since, time_ns);
  t.stretch_bounded = false;
}

uint64_t CpuAccounting::timer_slack_ns(uint64_t period_ns) {
  // Half a period, but never under 0.5 ms: at high rates the latency, not the period, dominates.
  return std::max<uint64_t>(period_ns / 2, 500'000);
}

CpuAccounting::Taken CpuAccounting::take(uint32_t tid, uint64_t time_ns,
                                         std::optional<ClockTick> tick, uint32_t cpu) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  note_cpu(t, cpu);
  // A tick ends the open stretch; if a timer was armed at its start, it bounds the stretch.
  const bool bounded =
      std::exchange(t.stretch_bounded, tick.has_value()) && tick && tick->period_ns > 0;
  if (tick) t.tick_period_ns = tick->period_ns;
  if (created) {
    t.on_cpu_since = time_ns;
    return Taken{std::nullopt, time_ns};
  }
  if (t.on_cpu_since && time_ns > *t.on_cpu_since) {
    credit_stretch(t, time_ns - *t.on_cpu_since, bounded ? tick->period_ns : 0);
    t.on_cpu_since = time_ns;
  }
  if (!t.on_cpu_since) t.stretch_bounded = false;  // not known to run: nothing to bound next time
  // What the scheduler's counts said since the previous take; a correction larger than what
  // this take reports waits for the next ones (a delta is never negative).
  int64_t discrepancy_ns = 0;
  for (const CpuShare& s : t.shares) discrepancy_ns += s.discrepancy_ns;
  const int64_t owed = discrepancy_ns - t.corrected_ns;
  const int64_t reported = static_cast<int64_t>(t.unreported_ns);
  const int64_t corrected = std::min(owed, reported);
  t.corrected_ns += corrected;
  Taken taken{
      static_cast<uint64_t>(reported - corrected), t.reported_until, std::exchange(t.stalled_ns, 0),
      std::exchange(t.stall_credited_ns, 0),       corrected,        std::exchange(t.stalls, 0)};
  t.unreported_ns = 0;
  t.reported_until = std::max(t.reported_until, time_ns);
  return taken;
}

void CpuAccounting::counted(uint32_t tid, uint32_t cpu, uint64_t time_ns, uint64_t runtime_ns) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  mark_running(t, time_ns, cpu);
  // Close what the open stretch ran so far, as credited: the count below checks exactly that.
  // The stretch goes on from here with its bound (if any) unchanged: the timer armed at its
  // start still fires within a period of this point.
  if (t.on_cpu_since && time_ns > *t.on_cpu_since) {
    credit(t, time_ns - *t.on_cpu_since);
    t.on_cpu_since = time_ns;
  }
  CpuShare& s = share(t, cpu);
  // What the count grew by since the last one, but never more than the thread was on this CPU
  // meanwhile: the excess is other tasks' time, updated from this thread's context (a wake-up of
  // a task on another CPU updates that CPU's running task) and counted by this thread's event.
  // Nor may the count run ahead of the switch records over the whole share by more than their
  // error: the small ahead steps a busy thread's count takes under load would add up otherwise.
  // Only switch-ins that started at their own record are late each time, so only theirs adds up.
  const uint64_t grew_ns = runtime_ns > s.last_count_ns ? runtime_ns - s.last_count_ns : 0;
  const uint64_t on_cpu_ns = s.on_cpu_ns - s.on_cpu_at_count_ns;
  const uint64_t slack_ns = count_slack_ns(std::exchange(s.switch_ins_since_count, 0));
  const uint64_t ceiling_ns = s.on_cpu_ns + s.late_starts_ns + slack_ns;
  const uint64_t room_ns = ceiling_ns > s.counted_ns ? ceiling_ns - s.counted_ns : 0;
  s.counted_ns += std::min({grew_ns, on_cpu_ns + slack_ns, room_ns});
  s.last_count_ns = runtime_ns;
  s.on_cpu_at_count_ns = s.on_cpu_ns;
  s.discrepancy_ns = static_cast<int64_t>(s.credited_ns) - static_cast<int64_t>(s.counted_ns);
}

void CpuAccounting::forget_ticks() {
  for (auto& [tid, t] : threads_) t.stretch_bounded = false;
}

std::optional<uint64_t> CpuAccounting::last_seen(uint32_t tid) const {
  const auto it = threads_.find(tid);
  if (it == threads_.end()) return std::nullopt;
  return it->second.last_seen;
}

}  // namespace sprof::convert
