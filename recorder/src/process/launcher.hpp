// recorder/src/process/launcher.hpp
//
// Starts the program to profile as a child that waits before exec: `Launcher::spawn` forks, the
// child blocks on a pipe, the recorder opens its perf events on the child's pid (with
// enable_on_exec), and `LaunchedChild::release` lets it call execvp. Sampling therefore starts
// exactly at exec, and the exec's own COMM/MMAP2 records are captured.
//
// Exec failure is reported, not guessed: the child writes errno into a close-on-exec pipe and
// `_exit(127)`s, so `release` sees either EOF (exec succeeded, the pipe closed) or an errno.
//
// Threading: use a LaunchedChild from one thread. The child between fork and exec only makes
// async-signal-safe calls, so spawning from a multi-threaded recorder is safe.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "sprof/convert/exit_status.hpp"
#include "sprof/core/result.hpp"
#include "sprof/core/unique_fd.hpp"

namespace sprof::recorder {

class LaunchedChild {
 public:
  LaunchedChild(LaunchedChild&& o) noexcept;
  LaunchedChild& operator=(LaunchedChild&& o) noexcept;
  LaunchedChild(const LaunchedChild&) = delete;
  LaunchedChild& operator=(const LaunchedChild&) = delete;
  // A child never released is told to exit and reaped. A released child is left running.
  ~LaunchedChild();

  pid_t pid() const { return pid_; }
  const std::string& program() const { return program_; }

  // Lets the child exec and waits until it has (or has failed to). On failure the error is
  // Errc::kExecFailed with sys_errno set and a message like
  // "cannot execute 'foo': No such file or directory"; the child has then been reaped and
  // `wait_for_exit` returns its exit status 127.
  Result<void> release();

  // Blocks until the child exits (EINTR-safe); returns the cached status if already reaped.
  Result<convert::ExitStatus> wait_for_exit();
  // Non-blocking: the status if the child has exited, nullopt while it runs.
  Result<std::optional<convert::ExitStatus>> try_wait();
  // Non-blocking, and leaves the child to be reaped (waitid WNOWAIT): whether it has exited, so
  // that the caller decides how the reaping runs.
  Result<bool> has_exited() const;
  // A pidfd of the child (pidfd_open(2)): readable once it has exited, so a poll can wait for
  // that; -1 where the kernel has none (before 5.3).
  int exit_fd() const { return pid_fd_.get(); }
  // kill(pid, sig), e.g. to forward SIGINT/SIGTERM. A no-op once the child is reaped.
  Result<void> send_signal(int sig);

 private:
  friend class Launcher;
  LaunchedChild(pid_t pid, std::string program, UniqueFd release_fd, UniqueFd error_fd)
      : pid_(pid),
        program_(std::move(program)),
        release_fd_(std::move(release_fd)),
        error_fd_(std::move(error_fd)),
        pid_fd_(open_pidfd(pid)) {}
  static UniqueFd open_pidfd(pid_t pid);
  void reap_if_unreleased();

  pid_t pid_ = -1;
  std::string program_;
  UniqueFd release_fd_;  // write end: one byte releases the child; close without it = abort
  UniqueFd error_fd_;    // read end: EOF = exec happened, 4 bytes = exec's errno
  UniqueFd pid_fd_;      // exit_fd()
  bool released_ = false;
  std::optional<convert::ExitStatus> exit_status_;
};

class Launcher {
 public:
  // Forks a child that will execvp(argv[0], argv) once released. Signal dispositions and the
  // signal mask are reset to defaults in the child before exec. `env_overrides` ("NAME=value")
  // are added to (or replace) the recorder's environment for the child.
  static Result<LaunchedChild> spawn(const std::vector<std::string>& argv,
                                     const std::vector<std::string>& env_overrides = {});
};

}  // namespace sprof::recorder
