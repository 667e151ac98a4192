// sprof/convert/lifecycle_markers.hpp
//
// Instant markers for the life of processes and threads, made from the task records
// (PERF_RECORD_FORK / COMM with PERF_RECORD_MISC_COMM_EXEC / EXIT): process start, exec (with
// the new command line), thread start, thread exit and process exit. Their schemas are in
// marker_schemas.hpp.
//
// perf's EXIT record carries no exit status. The session knows the status of the command it
// launched, so the root process's exit marker is held back until `finish_root_exit`, which adds
// the status the session reported through `set_root_status`.
#pragma once

#include <optional>
#include <string>

#include "sprof/convert/exit_status.hpp"
#include "sprof/perf/records.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::convert {

class LifecycleMarkers {
 public:
  explicit LifecycleMarkers(uint32_t root_pid) : root_pid_(root_pid) {}

  // "Process start" on the new process's thread, or "Thread start" on the new thread
  // (a FORK record with pid == ppid creates a thread). `process_name` is the new process's.
  profile::Marker on_fork(const perf::ForkRecord& f, const std::string& process_name,
                          double time_ms) const;
  // "exec" with the new program's command line (or its comm when the line is unknown).
  profile::Marker on_exec(const perf::CommRecord& c, const std::optional<std::string>& command_line,
                          double time_ms) const;
  // "Thread exit", or "Process exit" for a main thread (tid == pid). Nothing for the root
  // process's main thread: see `finish_root_exit`.
  std::optional<profile::Marker> on_exit(const perf::ExitRecord& e, double time_ms);

  void set_root_status(const ExitStatus& status) { root_status_ = status; }
  // The root process's "Process exit", at its EXIT record's time (else `end_ms` when only the
  // status is known), with the status when the session gave one; nullopt if neither is known.
  std::optional<profile::Marker> finish_root_exit(double end_ms) const;

 private:
  profile::Marker process_exit(uint32_t pid, double time_ms,
                               const std::optional<ExitStatus>& status) const;

  uint32_t root_pid_;
  std::optional<double> root_exit_ms_;
  std::optional<ExitStatus> root_status_;
};

// "exit code 3", "killed by signal 9 (KILL)".
std::string describe_exit_status(const ExitStatus& status);

}  // namespace sprof::convert
