// sprof/recorder/session.hpp
//
// A recording: launches the command stopped, opens one sampling event per CPU that follows it
// and everything it forks or execs (inherit + enable_on_exec), releases it, and drains the ring
// buffers into a profile until the command exits (or -d elapses; with --iteration-count the
// command is launched again, into the same profile). `attach` records processes that already
// run (-p) or the whole system (-a) instead, until they exit, -d elapses or Ctrl-C.
//
// Signals are the caller's business: `run` polls `pending_signal` and forwards a nonzero value to
// the command, so Ctrl-C ends the command, not the recording, and the profile is still written.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "sprof/convert/exit_status.hpp"
#include "sprof/convert/stats.hpp"
#include "sprof/core/result.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/recorder/options.hpp"

namespace sprof::recorder {

// Why the recording ended.
enum class StopCause {
  kTargetsEnded,   // the command (every iteration) or every attached process exited
  kDuration,       // -d elapsed
  kStopRequested,  // SIGINT/SIGTERM/... to sprof in attach or system-wide mode
};

struct Recording {
  profile::Profile profile;
  convert::RecordingStats stats;
  convert::ExitStatus status;  // the command's; exit code 0 when sprof stopped the recording itself
  double duration_s = 0;
  uint64_t child_exit_monotonic_ns = 0;  // when the command ended (for latency measurements)
  StopCause stop_cause = StopCause::kTargetsEnded;
  // Launched commands still running when the recording stopped early (-d without
  // --kill-on-stop); sprof does not wait for them.
  std::vector<int> left_running;
  int iterations = 1;  // launches recorded
};

class Session {
 public:
  // Errc::kExecFailed with "cannot execute ..." when the command cannot be executed (the CLI exits 127 then, and writes no profile).
  static Result<std::unique_ptr<Session>> launch(const RecordOptions& options);
  // Records running processes (options.attach_pids) or, with options.system_wide, every process
  // (CPU-wide events; the profile's top-level process is then pid 0, the kernel's idle task,
  // named "System"). Sampling starts here. Errc::kNotFound when a pid does not exist.
  static Result<std::unique_ptr<Session>> attach(const RecordOptions& options);
  // launch() or attach(), as the options ask, after check_record_options().
  static Result<std::unique_ptr<Session>> start(const RecordOptions& options);
  ~Session();

  // Records until the targets end or options.duration_s elapses. A launched command gets the
  // signals that arrive in `pending_signal`; in attach and system-wide modes, which own no
  // process, `stop_requested` turning true ends the recording instead (in launch mode it only
  // prevents further iterations: the command got the terminal's signal itself).
  Result<Recording> run(std::atomic<int>& pending_signal,
                        const std::atomic<bool>* stop_requested = nullptr);
  int child_pid() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::recorder
