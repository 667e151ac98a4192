// The scheduler's count of each thread's CPU time (EventConfig::runtime_counts), which the
// converter checks the switch records' CPU deltas against (convert/cpu_accounting.hpp).
//
// The sched:sched_stat_runtime tracepoint fires wherever the scheduler adds run time to the
// running task (update_curr: at ticks, switches, wake-ups, reads of the thread's CPU clock), and
// perf counts its `runtime` argument (__perf_count), in nanoseconds: the same delta the kernel
// adds to the thread's clock, with a VM's steal left out. Opened per task and CPU like the
// sampling event, inherited by new threads, each thread's event counts its own time on that CPU.
//
// Samples carry that count (PERF_SAMPLE_READ; with inherit since Linux 6.12) and come every
// kCountPeriodNs of counted time: at most a few hundred per second of CPU, however often the
// scheduler updates. PERF_SAMPLE_PERIOD must stay out of sample_type: with it the kernel takes a
// sample at every hit of the tracepoint (perf_swevent_event), which a thread reading its CPU
// clock in a loop hits hundreds of thousands of times a second.
//
// Best effort: the tracepoint's id is in tracefs (root; where tracefs is not mounted, root mounts
// one privately for the id: tracepoint_id.cpp), and older kernels refuse inherit with
// PERF_SAMPLE_READ. Without it, CPU deltas come from the switch records alone.
//
// The cost is the tracepoint's, paid by the recorded program at every scheduler update of its
// threads: ~0.1 us each (a loop that only reads its thread's CPU clock runs +35 % slower, two
// threads that only wake each other through pipes +10 %). So by default (--cpu-counts=auto) it
// is recorded only where CPUs can stall, under a hypervisor.
#include <cpuid.h>

#include <array>
#include <cerrno>
#include <optional>
#include <string>

#include "perf/perf_event.hpp"
#include "sprof/core/log.hpp"

namespace sprof::recorder::perf {

namespace {

// A count sample per 4 ms of a thread's time on a CPU: one per scheduler tick at HZ=250, so a
// busy thread's count is rarely more than a tick behind, at a fraction of the sampling event's
// record rate.
constexpr uint64_t kCountPeriodNs = 4'000'000;

constexpr const char* kTracepointIdFile = "events/sched/sched_stat_runtime/id";
// Where tracefs is mounted on most systems: its own mount point, and under debugfs on older ones.
constexpr std::array<const char*, 2> kTracepointIdPaths = {
    "/sys/kernel/tracing/events/sched/sched_stat_runtime/id",
    "/sys/kernel/debug/tracing/events/sched/sched_stat_runtime/id",
};

}  // namespace

std::optional<uint64_t> sched_runtime_tracepoint_id() {
  for (const char* path : kTracepointIdPaths) {
    if (const auto id = read_kernel_number(path); id && *id >= 0) {
      return static_cast<uint64_t>(*id);
    }
  }
  // No tracefs mounted (minimal VMs and CI runners often have none): root reads the id from a
  // mount of its own (tracepoint_id.cpp).
  if (const auto id = tracepoint_id_from_private_tracefs(kTracepointIdFile)) {
    return static_cast<uint64_t>(*id);
  }
  return std::nullopt;
}

bool runs_under_hypervisor() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & (1u << 31)) != 0;
}

perf_event_attr make_runtime_attr(const perf_event_attr& sample_attr, uint64_t tracepoint_id) {
  // The context-switch attr already drops the side-band records and the wake-ups, and keeps the
  // clock, inherit and enable_on_exec of the sampling event, which the ring requires.
  perf_event_attr attr = make_context_switch_attr(sample_attr);
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.config = tracepoint_id;
  attr.freq = 0;
  attr.sample_period = kCountPeriodNs;
  // The same id and trailer fields as the sampling event (one ring, told apart by id).
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                     PERF_SAMPLE_READ;
  attr.read_format = 0;  // just the count
  attr.sample_regs_user = 0;
  attr.sample_stack_user = 0;
  attr.sample_max_stack = 0;
  attr.exclude_callchain_kernel = 0;
  // The tracepoint fires in the kernel: excluding it would count nothing.
  attr.exclude_kernel = 0;
  return attr;
}

bool PerfEvents::open_runtime_events(pid_t task) {
  perf_event_attr attr = make_runtime_attr(attr_, *runtime_tracepoint_);
  auto opened = open_beside_sampling(attr, task, *runtime_event_);
  if (!opened && opened.error().sys_errno != ESRCH) {
    log::info("perf: no scheduler CPU counts for task " + std::to_string(task) + " (" +
              opened.error().message + "); its CPU deltas come from switch records alone");
  }
  return opened.has_value();
}

}  // namespace sprof::recorder::perf
