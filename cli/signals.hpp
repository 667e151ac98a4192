// cli/signals.hpp
//
// While recording, SIGINT/SIGTERM/SIGHUP/SIGQUIT must not kill sprof: the command gets them and
// ends, and sprof still writes its profile. A signal typed at the terminal already reaches the
// command (same foreground process group); one sent to sprof alone with kill(2) is forwarded
// to it through `pending_signal`.
#pragma once

#include <atomic>

namespace sprof::cli {

class RecordingSignalGuard {
 public:
  RecordingSignalGuard();
  ~RecordingSignalGuard();  // restores the default dispositions
  RecordingSignalGuard(const RecordingSignalGuard&) = delete;
  RecordingSignalGuard& operator=(const RecordingSignalGuard&) = delete;

  std::atomic<int>& pending_signal();
};

}  // namespace sprof::cli
