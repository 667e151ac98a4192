// `sprof stat`'s session: the launched or attached targets, their counters, and the loop that
// waits for the end while draining the counters' rings.
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "attach/attach_targets.hpp"
#include "counting/counter_set.hpp"
#include "process/launcher.hpp"
#include "process/stop_child.hpp"
#include "sprof/core/clock.hpp"
#include "sprof/recorder/counting.hpp"

namespace sprof::recorder {

namespace {

// How often the loop wakes at the latest: to forward signals, check -d and drain the rings
// (each holds ~5,000 thread-exit records, counter_set.cpp).
constexpr int kPollIntervalMs = 100;
// A launched command sprof stops (a second Ctrl-C) gets this long between SIGTERM and SIGKILL.
constexpr std::chrono::milliseconds kTerminateGrace{2000};

std::vector<CounterEvent> requested_events(const CountOptions& options) {
  std::vector<CounterEvent> events;
  // In counter_events() order, whatever order -e gave, so that groups are contiguous.
  for (const auto& [name, event] : counter_events()) {
    if (options.events.empty() ||
        std::find(options.events.begin(), options.events.end(), event) != options.events.end()) {
      events.push_back(event);
    }
  }
  return events;
}

// pidfds of attached processes: readable once the whole process has exited (pidfd_open(2)),
// which works for processes that are not sprof's children.
std::vector<UniqueFd> open_pidfds(const std::vector<int>& pids) {
  std::vector<UniqueFd> fds;
  for (int pid : pids) {
    const long fd = ::syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) fds.emplace_back(static_cast<int>(fd));
  }
  return fds;
}

}  // namespace

struct CountingSession::Impl {
  CountOptions options;
  std::optional<LaunchedChild> child;
  std::vector<UniqueFd> attached_exit_fds;
  std::optional<counting::CounterSet> counters;
  uint64_t start_ns = 0;
};

CountingSession::CountingSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CountingSession::~CountingSession() = default;

Result<std::unique_ptr<CountingSession>> CountingSession::start(const CountOptions& options) {
  if (options.command.empty() == options.attach_pids.empty()) {
    return fail(Errc::kInvalidArgument, "stat: give either a command or -p PID");
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  counting::CounterSetConfig config;
  config.events = requested_events(options);
  if (!options.command.empty()) {
    SPROF_TRY(LaunchedChild child, Launcher::spawn(options.command, options.environment));
    config.tasks = {{child.pid(), child.pid()}};
    config.enable_on_exec = true;
    SPROF_TRY(counting::CounterSet counters, counting::CounterSet::open(config));
    impl->counters = std::move(counters);
    impl->start_ns = clock_ns(CLOCK_MONOTONIC);
    SPROF_TRY_VOID(child.release());
    impl->child = std::move(child);
  } else {
    SPROF_TRY(std::vector<AttachedProcess> targets, list_attach_targets(options.attach_pids));
    for (const auto& process : targets) {
      for (pid_t tid : process.tids) config.tasks.push_back({process.pid, tid});
    }
    impl->attached_exit_fds = open_pidfds(options.attach_pids);
    SPROF_TRY(counting::CounterSet counters, counting::CounterSet::open(config));
    impl->counters = std::move(counters);
    impl->start_ns = clock_ns(CLOCK_MONOTONIC);
  }
  return std::unique_ptr<CountingSession>(new CountingSession(std::move(impl)));
}

Result<Counts> CountingSession::run(const RunControl& control) {
  Impl& s = *impl_;
  Counts counts;
  const uint64_t deadline_ns =
      s.options.duration_s > 0 ? s.start_ns + static_cast<uint64_t>(s.options.duration_s * 1e9) : 0;
  std::vector<pollfd> fds;
  for (int fd : s.counters->ring_fds()) fds.push_back({fd, POLLIN, 0});
  const size_t first_exit_fd = fds.size();
  if (s.child && s.child->exit_fd() >= 0) fds.push_back({s.child->exit_fd(), POLLIN, 0});
  for (const auto& fd : s.attached_exit_fds) fds.push_back({fd.get(), POLLIN, 0});

  for (;;) {
    int timeout_ms = kPollIntervalMs;
    if (deadline_ns != 0) {
      const uint64_t now = clock_ns(CLOCK_MONOTONIC);
      if (now >= deadline_ns) {
        counts.stopped_early = true;
        break;
      }
      timeout_ms = std::min<int>(timeout_ms, static_cast<int>((deadline_ns - now) / 1000000) + 1);
    }
    // A ring reports POLLHUP once its task has exited; it is still drained, not waited on.
    for (auto& p : fds) p.revents = 0;
    ::poll(fds.data(), fds.size(), timeout_ms);
    s.counters->drain();

    if (s.child) {
      if (control.pending_signal != nullptr) {
        if (const int sig = control.pending_signal->exchange(0); sig != 0) {
          (void)s.child->send_signal(sig);
        }
      }
      // The terminal's Ctrl-C reached the command too; a second one means it ignores it.
      if (control.stop_requests != nullptr && control.stop_requests->load() >= 2) {
        SPROF_TRY(counts.status, terminate_child(*s.child, kTerminateGrace));
        counts.stopped_early = true;
        break;
      }
      // Reaped here: by then every thread has exited and written its final counts.
      SPROF_TRY(const auto status, s.child->try_wait());
      if (status) {
        counts.status = *status;
        break;
      }
    } else {
      if (control.stop_requests != nullptr && control.stop_requests->load() > 0) {
        counts.stopped_early = true;
        break;
      }
      const bool all_exited =
          fds.size() > first_exit_fd &&
          std::all_of(fds.begin() + static_cast<std::ptrdiff_t>(first_exit_fd), fds.end(),
                      [](const pollfd& p) { return (p.revents & POLLIN) != 0; });
      if (all_exited) break;
    }
  }
  const uint64_t end_ns = clock_ns(CLOCK_MONOTONIC);
  if (!s.child || counts.stopped_early) SPROF_TRY_VOID(s.counters->disable());
  SPROF_TRY_VOID(s.counters->collect(counts));
  counts.wall_s = static_cast<double>(end_ns - s.start_ns) / 1e9;
  return counts;
}

}  // namespace sprof::recorder
