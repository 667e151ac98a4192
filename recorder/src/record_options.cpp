#include <cmath>

#include "sprof/recorder/options.hpp"

namespace sprof::recorder {

const std::vector<std::pair<std::string, SamplingEvent>>& sampling_events() {
  static const std::vector<std::pair<std::string, SamplingEvent>> kEvents = {
      {"cpu-clock", SamplingEvent::kCpuClock},
      {"task-clock", SamplingEvent::kTaskClock},
      {"cycles", SamplingEvent::kCycles},
      {"instructions", SamplingEvent::kInstructions},
      {"cache-misses", SamplingEvent::kCacheMisses},
      {"page-faults", SamplingEvent::kPageFaults},
      {"context-switches", SamplingEvent::kContextSwitches},
  };
  return kEvents;
}

std::string sampling_event_name(SamplingEvent event) {
  for (const auto& [name, e] : sampling_events()) {
    if (e == event) return name;
  }
  return "auto";
}

Result<void> check_record_options(const RecordOptions& o) {
  const int targets =
      (o.command.empty() ? 0 : 1) + (o.attach_pids.empty() ? 0 : 1) + (o.system_wide ? 1 : 0);
  if (targets == 0) {
    return fail(Errc::kInvalidArgument, "nothing to record: give a command, -p PID, or -a");
  }
  if (targets > 1) {
    return fail(Errc::kInvalidArgument,
                "choose one of: a command, -p PID, or -a (they cannot be combined)");
  }
  if (!std::isfinite(o.duration_s) || o.duration_s < 0) {
    return fail(Errc::kInvalidArgument, "the duration must be a non-negative number of seconds");
  }
  if (o.iteration_count < 1) {
    return fail(Errc::kInvalidArgument, "the iteration count must be at least 1");
  }
  if (o.command.empty() && o.iteration_count != 1) {
    return fail(Errc::kInvalidArgument, "--iteration-count needs a command to launch");
  }
  if (o.command.empty() && o.kill_on_stop) {
    return fail(Errc::kInvalidArgument, "--kill-on-stop applies to a launched command only");
  }
  if (o.kill_on_stop && o.duration_s == 0) {
    return fail(Errc::kInvalidArgument, "--kill-on-stop needs -d/--duration");
  }
  if (o.heap != HeapMode::kOff && o.command.empty() && o.attach_pids.empty()) {
    return fail(Errc::kInvalidArgument,
                "--heap needs a command to launch or -p PID: allocations are recorded by a "
                "library loaded into each program, which cannot be done for the whole system "
                "(-a)");
  }
  if (!o.sample_cpu && o.heap == HeapMode::kOff) {
    return fail(Errc::kInvalidArgument, "--no-cpu leaves nothing to record without --heap");
  }
  if (!o.sample_cpu && o.event != SamplingEvent::kAuto) {
    return fail(Errc::kInvalidArgument, "--no-cpu samples no event: -e does not apply");
  }
  if (o.heap == HeapMode::kSampled && o.heap_interval_bytes == 0) {
    return fail(Errc::kInvalidArgument,
                "--heap-interval must be at least 1 byte (--heap=all records every allocation)");
  }
  if (o.cswitch_markers && !o.per_cpu_threads) {
    return fail(Errc::kInvalidArgument, "--cswitch-markers needs --per-cpu-threads");
  }
  if (o.process_name_args < 0) {
    return fail(Errc::kInvalidArgument, "the number of arguments to show must not be negative");
  }
  for (int pid : o.attach_pids) {
    if (pid <= 0) return fail(Errc::kInvalidArgument, "invalid pid " + std::to_string(pid));
  }
  return ok();
}

}  // namespace sprof::recorder
