// The CPU-wide switch records that give exact switch-in times (CpuAccounting::picked).
//
// A task's PERF_RECORD_SWITCH(in) is written after the context switch and after perf has
// scheduled the task's own events in, microseconds after the scheduler picked the task, which
// is when the kernel starts charging CPU time to it. The record written closest to the pick is
// the outgoing task's switch-out: a CPU-wide context_switch event (pid -1) sees it as
// PERF_RECORD_SWITCH_CPU_WIDE naming the next task. One dummy event per CPU, writing into that
// CPU's ring, adds two small records per context switch of the machine; the converter keeps
// only the switch-outs naming our threads.
//
// CPU-wide events need CAP_PERFMON (root) or perf_event_paranoid <= 0. Without them the
// recording goes on with the per-task records alone (a small downward bias per switch-in,
// docs/design.md "CPU deltas").
#include <string>
#include <utility>

#include "perf/perf_event.hpp"
#include "sprof/core/log.hpp"

namespace sprof::recorder::perf {

perf_event_attr make_cpu_wide_switch_attr(const perf_event_attr& sample_attr) {
  // The sampling event's sample_type and clock, so the records' sample_id trailer parses with
  // its layout and the ring accepts the event (PERF_EVENT_IOC_SET_OUTPUT needs the same clock).
  perf_event_attr attr = make_context_switch_attr(sample_attr);
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.sample_period = 0;  // counts nothing, samples nothing: side-band records only
  attr.context_switch = 1;
  attr.inherit = 0;
  attr.enable_on_exec = 0;
  attr.disabled = 0;
  return attr;
}

void PerfEvents::open_cpu_wide_switches() {
  perf_event_attr attr = make_cpu_wide_switch_attr(attr_);
  for (auto& r : rings_) {
    auto event = open_into_ring(attr, -1, r.cpu, r.fds.front().get());
    if (!event.has_value()) {
      log::info("perf: no CPU-wide switch records (" + event.error().message +
                "); CPU deltas start at switch-in records");
      close_cpu_wide_switches();
      return;
    }
    r.cpu_wide_switches = std::move(*event);
  }
}

void PerfEvents::close_cpu_wide_switches() {
  for (auto& r : rings_) r.cpu_wide_switches = UniqueFd();
}

}  // namespace sprof::recorder::perf
