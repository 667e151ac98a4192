#include "attach/attach_targets.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <iterator>

#include "process/proc_maps.hpp"
#include "sprof/core/log.hpp"

namespace sprof::recorder {

namespace {

// A listed thread may exit before its event is opened (perf_event_open: ESRCH); listing again
// and retrying settles that unless the process churns threads faster than we can open events.
constexpr int kOpenAttempts = 3;

Result<std::vector<pid_t>> threads_of(pid_t pid, std::string_view proc_root) {
  auto tids = list_threads(pid, proc_root);
  if (!tids.has_value() || tids->empty()) {
    return fail(Errc::kNotFound, "no process with pid " + std::to_string(pid) +
                                     (tids.has_value() ? "" : " (" + tids.error().message + ")"));
  }
  return tids;
}

// One event per thread and CPU, each an fd: a process with a few hundred threads exceeds the
// usual soft limit of 1024 open files. The hard limit is ours to use.
void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) log::debug("attach: cannot raise RLIMIT_NOFILE");
}

Result<void> relist(std::vector<AttachedProcess>& targets, std::string_view proc_root) {
  for (auto& t : targets) {
    SPROF_TRY(t.tids, threads_of(t.pid, proc_root));
  }
  return ok();
}

}  // namespace

Result<std::vector<AttachedProcess>> list_attach_targets(const std::vector<int>& pids,
                                                         std::string_view proc_root) {
  if (pids.empty()) return fail(Errc::kInvalidArgument, "no process to attach to");
  std::vector<AttachedProcess> targets;
  for (int pid : pids) {
    if (pid <= 0) return fail(Errc::kInvalidArgument, "invalid pid " + std::to_string(pid));
    const bool seen = std::any_of(targets.begin(), targets.end(),
                                  [pid](const AttachedProcess& t) { return t.pid == pid; });
    if (seen) continue;
    AttachedProcess target;
    target.pid = pid;
    SPROF_TRY(target.tids, threads_of(pid, proc_root));
    targets.push_back(std::move(target));
  }
  return targets;
}

std::vector<pid_t> tids_not_in(const std::vector<pid_t>& known, const std::vector<pid_t>& now) {
  std::vector<pid_t> out;
  std::set_difference(now.begin(), now.end(), known.begin(), known.end(), std::back_inserter(out));
  return out;
}

std::vector<pid_t> all_tids(const std::vector<AttachedProcess>& targets) {
  std::vector<pid_t> out;
  for (const auto& t : targets) out.insert(out.end(), t.tids.begin(), t.tids.end());
  return out;
}

Result<perf::PerfEvents> open_attached_events(const perf::EventConfig& base,
                                              std::vector<AttachedProcess>& targets,
                                              std::string_view proc_root) {
  perf::EventConfig config = base;
  // Already running: count from now, not from an exec that will not come. `inherit` follows
  // the threads and processes the targets create while we record.
  config.inherit = true;
  config.enable_on_exec = false;
  raise_open_file_limit();

  for (int attempt = 1;; ++attempt) {
    const std::vector<pid_t> tids = all_tids(targets);
    config.pid = tids.front();
    config.extra_tids.assign(tids.begin() + 1, tids.end());
    auto events = perf::PerfEvents::open(config);
    if (!events.has_value()) {
      if (events.error().sys_errno != ESRCH || attempt == kOpenAttempts) return events;
      log::debug("attach: a thread exited while opening events; listing threads again");
      SPROF_TRY_VOID(relist(targets, proc_root));
      continue;
    }

    // Threads born between the listing and the opening have no event yet.
    for (auto& t : targets) {
      auto now = list_threads(t.pid, proc_root);
      if (!now.has_value()) continue;  // the process ended meanwhile; its events hang up
      const std::vector<pid_t> born = tids_not_in(t.tids, *now);
      if (born.empty()) continue;
      SPROF_TRY(std::vector<pid_t> added, events->add_tasks(born));
      t.tids.insert(t.tids.end(), added.begin(), added.end());
      std::sort(t.tids.begin(), t.tids.end());
    }
    return events;
  }
}

}  // namespace sprof::recorder
