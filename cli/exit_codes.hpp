// cli/exit_codes.hpp: the one table of sprof's own exit codes. `sprof record` otherwise exits
// with the recorded command's status (its exit code, or 128 + signal).
#pragma once

#include "sprof/core/result.hpp"

namespace sprof::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;            // bad command line
inline constexpr int kExitPermission = 2;       // perf_event_open refused, port not bindable, ...
inline constexpr int kExitFailure = 3;          // recording, writing or serving failed
inline constexpr int kExitRegression = 4;       // diff --fail-above: a function grew by more
inline constexpr int kExitCannotExecute = 127;  // the command could not be executed (as in sh)
// Plus the signal: stopped by a second SIGINT (130), SIGTERM (143), ..., as a shell reports it.
inline constexpr int kExitSignalled = 128;

// sprof's exit code for an error that ends a command run by `record` or `stat`.
inline int run_error_exit_code(const Error& e) {
  switch (e.code) {
    case Errc::kExecFailed: return kExitCannotExecute;
    case Errc::kPermissionDenied: return kExitPermission;
    case Errc::kInvalidArgument: return kExitUsage;
    default: return kExitFailure;
  }
}

}  // namespace sprof::cli
