// The context-switch events behind off-CPU stacks (EventConfig::off_cpu).
//
// PERF_COUNT_SW_CONTEXT_SWITCHES with sample_period 1 samples every switch of the task. The
// kernel takes the sample in perf_event_task_sched_out, before the task's events are scheduled
// out and before PERF_RECORD_SWITCH(out) is written, in the context of the task being switched
// out: its callchain is the kernel path into schedule() followed by the user stack, and
// PERF_SAMPLE_REGS_USER / STACK_USER come from the task's saved user registers
// (perf_sample_regs_user uses task_pt_regs for a kernel-mode sample). So the sample is the
// blocking thread's stack, unwound like any other sample.
//
// The event writes into the sampling event's ring on the same CPU (PERF_EVENT_IOC_SET_OUTPUT), so
// the merger keeps the sample in order with the switch record that follows it. Both events carry
// PERF_SAMPLE_IDENTIFIER; PERF_EVENT_IOC_ID gives the id our samples will carry (the kernel
// reports primary_event_id, i.e. the parent's id for events inherited by new threads).
#include "perf/perf_event.hpp"
#include "sprof/core/log.hpp"

namespace sprof::recorder::perf {

namespace {

// Its place in the event table PerfEvents::open makes: after the sampling event.
constexpr size_t kContextSwitchEvent = 1;

}  // namespace

perf_event_attr make_context_switch_attr(const perf_event_attr& sample_attr) {
  perf_event_attr attr = sample_attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  attr.freq = 0;
  attr.sample_period = 1;  // every switch
  // Side-band records come from the sampling event only; twice would duplicate them.
  attr.mmap = 0;
  attr.mmap2 = 0;
  attr.mmap_data = 0;
  attr.comm = 0;
  attr.comm_exec = 0;
  attr.task = 0;
  attr.context_switch = 0;
  attr.namespaces = 0;
  attr.ksymbol = 0;
  attr.bpf_event = 0;
  attr.cgroup = 0;
  attr.text_poke = 0;
  // The ring belongs to the sampling event, which does the waking.
  attr.watermark = 0;
  attr.wakeup_watermark = 0;
  attr.wakeup_events = 0;
  return attr;
}

Result<void> PerfEvents::open_context_switch_events(pid_t task) {
  perf_event_attr attr = make_context_switch_attr(attr_);
  return open_beside_sampling(attr, task, kContextSwitchEvent);
}

Result<void> PerfEvents::open_off_cpu_events(const std::vector<pid_t>& tasks) {
  if (kernel_excluded()) {
    // A software event with exclude_kernel drops samples taken in kernel mode, and a switch
    // always happens there (perf_exclude_event), so there would be nothing to record.
    log::info("perf: no off-CPU stacks without kernel sampling (perf_event_paranoid)");
    return ok();
  }
  for (pid_t task : tasks) SPROF_TRY_VOID(open_context_switch_events(task));
  off_cpu_ = true;
  return ok();
}

}  // namespace sprof::recorder::perf
