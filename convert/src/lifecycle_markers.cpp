#include "sprof/convert/lifecycle_markers.hpp"

#include <string.h>  // sigabbrev_np (glibc >= 2.32)

#include "sprof/convert/marker_schemas.hpp"

namespace sprof::convert {

namespace {

profile::Marker instant(std::string name, const char* type, double time_ms) {
  profile::Marker m;
  m.name = std::move(name);
  m.start_ms = time_ms;
  m.phase = profile::MarkerPhase::kInstant;
  m.category = profile::Category::kOther;
  m.type = type;
  return m;
}

int64_t as_int(uint32_t v) { return static_cast<int64_t>(v); }

}  // namespace

std::string describe_exit_status(const ExitStatus& status) {
  if (!status.signaled) return "exit code " + std::to_string(status.code);
  std::string out = "killed by signal " + std::to_string(status.signal);
  if (const char* abbrev = sigabbrev_np(status.signal)) out += std::string(" (") + abbrev + ")";
  return out;
}

profile::Marker LifecycleMarkers::on_fork(const perf::ForkRecord& f,
                                          const std::string& process_name, double time_ms) const {
  if (f.pid == f.ppid) {
    profile::Marker m = instant("Thread start", kThreadStartMarkerType, time_ms);
    m.fields.push_back({"tid", as_int(f.tid)});
    m.fields.push_back({"creator", as_int(f.ptid)});
    return m;
  }
  profile::Marker m = instant("Process start", kProcessStartMarkerType, time_ms);
  m.fields.push_back({"pid", as_int(f.pid)});
  m.fields.push_back({"ppid", as_int(f.ppid)});
  m.fields.push_back({"name", process_name});
  return m;
}

profile::Marker LifecycleMarkers::on_exec(const perf::CommRecord& c,
                                          const std::optional<std::string>& command_line,
                                          double time_ms) const {
  profile::Marker m = instant("exec", kExecMarkerType, time_ms);
  m.fields.push_back({"pid", as_int(c.pid)});
  m.fields.push_back({"command", command_line && !command_line->empty() ? *command_line : c.comm});
  return m;
}

std::optional<profile::Marker> LifecycleMarkers::on_exit(const perf::ExitRecord& e,
                                                         double time_ms) {
  if (e.tid != e.pid) {
    profile::Marker m = instant("Thread exit", kThreadExitMarkerType, time_ms);
    m.fields.push_back({"tid", as_int(e.tid)});
    return m;
  }
  if (e.pid == root_pid_) {
    root_exit_ms_ = time_ms;
    return std::nullopt;
  }
  return process_exit(e.pid, time_ms, std::nullopt);
}

std::optional<profile::Marker> LifecycleMarkers::finish_root_exit(double end_ms) const {
  if (!root_exit_ms_ && !root_status_) return std::nullopt;
  return process_exit(root_pid_, root_exit_ms_.value_or(end_ms), root_status_);
}

profile::Marker LifecycleMarkers::process_exit(uint32_t pid, double time_ms,
                                               const std::optional<ExitStatus>& status) const {
  profile::Marker m = instant("Process exit", kProcessExitMarkerType, time_ms);
  m.fields.push_back({"pid", as_int(pid)});
  if (!status) {
    m.fields.push_back({"status", std::string("exited (status unknown)")});
    return m;
  }
  m.fields.push_back({"status", describe_exit_status(*status)});
  if (status->signaled) {
    m.fields.push_back({"signal", int64_t{status->signal}});
  } else {
    m.fields.push_back({"exitCode", int64_t{status->code}});
  }
  return m;
}

}  // namespace sprof::convert
