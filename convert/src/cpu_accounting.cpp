#include "sprof/convert/cpu_accounting.hpp"

#include <algorithm>

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

void CpuAccounting::running(uint32_t tid, uint64_t time_ns) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  // Running without a switch-in seen: either the thread ran since before we saw it, or a
  // switch-in was lost. Either way it runs from now on; the time before is unknown.
  if (!t.on_cpu_since) t.on_cpu_since = time_ns;
}

void CpuAccounting::switched_in(uint32_t tid, uint64_t time_ns) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  // A second switch-in without a switch-out in between means a lost record: the interval since
  // the first one is not known to be on CPU, so it restarts here.
  t.on_cpu_since = switch_in_time(tid, time_ns);
  t.picked_at.reset();
}

uint64_t CpuAccounting::switch_in_time(uint32_t tid, uint64_t record_ns) const {
  const auto it = threads_.find(tid);
  if (it == threads_.end()) return record_ns;
  const ThreadCpu& t = it->second;
  // A pick older than the last switch-out belongs to an earlier switch-in whose record was lost.
  const bool pick_is_ours =
      t.picked_at && *t.picked_at <= record_ns && *t.picked_at >= t.off_cpu_since;
  return pick_is_ours ? *t.picked_at : record_ns;
}

void CpuAccounting::picked(uint32_t tid, uint64_t time_ns) {
  bool created = false;
  state(tid, time_ns, created).picked_at = time_ns;
}

void CpuAccounting::switched_out(uint32_t tid, uint64_t time_ns) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  if (t.on_cpu_since && time_ns > *t.on_cpu_since) t.unreported_ns += time_ns - *t.on_cpu_since;
  t.on_cpu_since.reset();
  t.off_cpu_since = std::max(t.off_cpu_since, time_ns);
}

CpuAccounting::Taken CpuAccounting::take(uint32_t tid, uint64_t time_ns) {
  bool created = false;
  ThreadCpu& t = state(tid, time_ns, created);
  if (created) {
    t.on_cpu_since = time_ns;
    return Taken{std::nullopt, time_ns};
  }
  if (t.on_cpu_since && time_ns > *t.on_cpu_since) {
    t.unreported_ns += time_ns - *t.on_cpu_since;
    t.on_cpu_since = time_ns;
  }
  Taken taken{t.unreported_ns, t.reported_until};
  t.unreported_ns = 0;
  t.reported_until = std::max(t.reported_until, time_ns);
  return taken;
}

std::optional<uint64_t> CpuAccounting::last_seen(uint32_t tid) const {
  const auto it = threads_.find(tid);
  if (it == threads_.end()) return std::nullopt;
  return it->second.last_seen;
}

}  // namespace sprof::convert
