// sprof/recorder/session.hpp
//
// A recording: launches the command stopped, opens one sampling event per CPU that follows it
// and everything it forks or execs (inherit + enable_on_exec), releases it, and drains the ring
// buffers into a profile until the command exits.
//
// Signals are the caller's business: `run` polls `pending_signal` and forwards a nonzero value to
// the command, so Ctrl-C ends the command, not the recording, and the profile is still written.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "sprof/core/result.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/recorder/options.hpp"
#include "sprof/recorder/stats.hpp"

namespace sprof::recorder {

struct ChildStatus {
  bool exited = false;    // exited normally with `exit_code`
  int exit_code = 0;
  int signal = 0;         // killed by this signal
  // The shell convention: exit code, or 128 + signal.
  int shell_code() const { return exited ? exit_code : 128 + signal; }
};

struct Recording {
  profile::Profile profile;
  RecordingStats stats;
  ChildStatus status;
  double duration_s = 0;
  uint64_t child_exit_monotonic_ns = 0;  // when the command ended (for latency measurements)
};

class Session {
 public:
  // Errc::kExecFailed with "cannot execute ..." when the command cannot be executed (the CLI exits 127 then, and writes no profile).
  static Result<std::unique_ptr<Session>> launch(const RecordOptions& options);
  ~Session();

  Result<Recording> run(std::atomic<int>& pending_signal);
  int child_pid() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::recorder
