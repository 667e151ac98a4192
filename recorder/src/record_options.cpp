#include <cmath>

#include "sprof/recorder/options.hpp"

namespace sprof::recorder {

Result<void> check_record_options(const RecordOptions& o) {
  const int targets = (o.command.empty() ? 0 : 1) + (o.attach_pids.empty() ? 0 : 1) +
                      (o.system_wide ? 1 : 0);
  if (targets == 0) {
    return fail(Errc::kInvalidArgument,
                "nothing to record: give a command after --, -p PID, or -a");
  }
  if (targets > 1) {
    return fail(Errc::kInvalidArgument,
                "choose one of: a command after --, -p PID, or -a (they cannot be combined)");
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
  for (int pid : o.attach_pids) {
    if (pid <= 0) return fail(Errc::kInvalidArgument, "invalid pid " + std::to_string(pid));
  }
  return ok();
}

}  // namespace sprof::recorder
