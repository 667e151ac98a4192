// recorder/src/heap/ptrace_permission.hpp
//
// Whether sprof may ptrace a running program to load the heap interposer into it
// (`sprof record --heap -p`), and the refusal to print when it may not. The deciding function
// is pure so tests can give it any setting; `check_ptrace_allowed` reads the live values.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "sprof/core/result.hpp"

namespace sprof::recorder {

struct PtraceFacts {
  // kernel.yama.ptrace_scope (0-3); nullopt where Yama is not built in.
  std::optional<int> yama_scope;
  pid_t tracer_pid = 0;     // TracerPid: of /proc/PID/status; 0 when none
  bool privileged = false;  // euid 0 (stands for CAP_SYS_PTRACE)
};

// The reason ptrace attach cannot work, naming the setting to change; nullopt when it may.
// Scope 1 is not refused here: a privileged sprof passes it, and an unprivileged one learns
// from PTRACE_SEIZE's EPERM (heap_injector.cpp words that error the same way).
std::optional<std::string> ptrace_refusal(pid_t pid, const PtraceFacts& facts);

// TracerPid from the text of /proc/PID/status; 0 when the line is missing.
pid_t parse_tracer_pid(std::string_view status_text);

// Reads the facts for `pid` under `proc_root`. Errors: kNotFound when the process does not
// exist, kPermissionDenied with ptrace_refusal's message.
Result<void> check_ptrace_allowed(pid_t pid, const std::string& proc_root = "/proc");

}  // namespace sprof::recorder
