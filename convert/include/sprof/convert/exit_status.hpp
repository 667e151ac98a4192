// sprof/convert/exit_status.hpp
#pragma once

namespace sprof::convert {

// How a process ended: an exit code or a terminating signal.
struct ExitStatus {
  bool signaled = false;
  int code = 0;    // exit code when !signaled
  int signal = 0;  // terminating signal when signaled
  // The shell's convention: the code, or 128 + signal.
  int shell_code() const { return signaled ? 128 + signal : code; }
};

}  // namespace sprof::convert
