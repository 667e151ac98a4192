// recorder/src/attach/attach_targets.hpp
//
// Attach mode (`sprof record -p PID`): the processes to record already run, so their threads are
// listed from /proc and each gets a sampling event per CPU (perf events follow one task; `inherit`
// then covers the threads and processes it creates from now on).
//
// Threads created between the listing and the opening of the events would be missed, so the
// threads are listed again once the events are open and the newcomers are added. What remains
// uncovered (documented, not fixable without stopping the target): a thread that a newcomer
// creates before the newcomer's own event is open, and threads that start and end inside that
// window.
#pragma once

#include <sys/types.h>

#include <string_view>
#include <vector>

#include "perf/perf_event.hpp"
#include "sprof/core/result.hpp"

namespace sprof::recorder {

struct AttachedProcess {
  pid_t pid = 0;
  std::vector<pid_t> tids;  // ascending; the threads events were opened for
};

// Lists the threads of each pid (duplicates are recorded once). Errc::kNotFound naming the pid
// when a process does not exist; kInvalidArgument for pids <= 0.
Result<std::vector<AttachedProcess>> list_attach_targets(const std::vector<int>& pids,
                                                         std::string_view proc_root = "/proc");

// The tids of `now` that are not in `known` (both ascending).
std::vector<pid_t> tids_not_in(const std::vector<pid_t>& known, const std::vector<pid_t>& now);

// Every tid of every target, in target order.
std::vector<pid_t> all_tids(const std::vector<AttachedProcess>& targets);

// Opens events on every listed thread (`base` supplies rates, unwinding and side-band choices;
// pid, extra_tids, inherit and enable_on_exec are set here), then lists the threads once more and
// adds those born meanwhile, updating `targets`. Sampling starts immediately.
Result<perf::PerfEvents> open_attached_events(const perf::EventConfig& base,
                                              std::vector<AttachedProcess>& targets,
                                              std::string_view proc_root = "/proc");

}  // namespace sprof::recorder
