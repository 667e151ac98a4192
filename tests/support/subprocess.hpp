// tests/support/subprocess.hpp
//
// Runs a program with an argv vector (no shell), capturing stdout and stderr, with an optional
// environment overlay and a timeout after which the child is killed. For tests only.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace sprof::test {

struct ProcessResult {
  int exit_code = -1;  // exit status, or 128 + signal
  bool timed_out = false;
  std::string out;
  std::string err;
};

struct RunOptions {
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) environ
  std::chrono::milliseconds timeout{120000};
  std::string cwd;  // empty: inherit
  std::string stdin_data;
  // Called with the child's pid right after it starts (e.g. to signal it from another thread).
  std::function<void(pid_t)> on_start;
};

ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options = {});

// A program left running in the background (e.g. sprof serving a profile), its stdout and stderr
// going to `log_path`. The destructor kills it (SIGKILL) if it still runs.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& argv, std::string log_path);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Waits until the log contains `needle`; returns the log so far, or "" on timeout or exit.
  std::string wait_for_log(const std::string& needle, std::chrono::milliseconds timeout);
  std::string log() const;
  // Sends `sig` and waits up to `timeout` for the exit; returns exit code, 128+signal, or -1.
  int stop(int sig, std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  std::string log_path_;
  bool reaped_ = false;
};

}  // namespace sprof::test
