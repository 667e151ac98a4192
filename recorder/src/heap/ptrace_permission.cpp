// recorder/src/heap/ptrace_permission.cpp
//
// Yama's rules (Documentation/admin-guide/LSM/Yama.rst): 0 any process of the same user,
// 1 only descendants (or a process that named its tracer with PR_SET_PTRACER) unless the tracer
// has CAP_SYS_PTRACE, 2 only with CAP_SYS_PTRACE, 3 never (and the setting cannot be lowered
// until reboot). A process has at most one tracer (ptrace(2)).
#include "heap/ptrace_permission.hpp"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>

namespace sprof::recorder {
namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

std::optional<std::string> ptrace_refusal(pid_t pid, const PtraceFacts& facts) {
  const std::string target = "process " + std::to_string(pid);
  if (facts.tracer_pid != 0)
    return "cannot attach to " + target + ": it is already traced by process " +
           std::to_string(facts.tracer_pid) +
           " (a debugger or another profiler; a process has "
           "one tracer at most)";
  if (facts.yama_scope == 3)
    return "cannot attach to " + target +
           ": kernel.yama.ptrace_scope is 3, which forbids ptrace attach until reboot";
  if (facts.yama_scope == 2 && !facts.privileged)
    return "cannot attach to " + target +
           ": kernel.yama.ptrace_scope is 2, which allows ptrace attach only with "
           "CAP_SYS_PTRACE (run as root, or set it to 0 or 1)";
  return std::nullopt;
}

pid_t parse_tracer_pid(std::string_view status_text) {
  constexpr std::string_view kKey = "TracerPid:";
  const size_t at = status_text.find(kKey);
  if (at == std::string_view::npos) return 0;
  size_t i = at + kKey.size();
  while (i < status_text.size() && (status_text[i] == ' ' || status_text[i] == '\t')) ++i;
  pid_t value = 0;
  std::from_chars(status_text.data() + i, status_text.data() + status_text.size(), value);
  return value;
}

Result<void> check_ptrace_allowed(pid_t pid, const std::string& proc_root) {
  const auto status = read_text(proc_root + "/" + std::to_string(pid) + "/status");
  if (!status) return fail(Errc::kNotFound, "no process " + std::to_string(pid));
  PtraceFacts facts;
  facts.tracer_pid = parse_tracer_pid(*status);
  facts.privileged = ::geteuid() == 0;
  if (const auto scope = read_text(proc_root + "/sys/kernel/yama/ptrace_scope")) {
    int value = 0;
    if (std::from_chars(scope->data(), scope->data() + scope->size(), value).ec == std::errc{})
      facts.yama_scope = value;
  }
  if (auto refusal = ptrace_refusal(pid, facts))
    return fail(Errc::kPermissionDenied, std::move(*refusal));
  return ok();
}

}  // namespace sprof::recorder
