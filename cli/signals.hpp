// cli/signals.hpp
//
// While recording, SIGINT/SIGTERM/SIGHUP/SIGQUIT must not kill sprof: the command gets them and
// ends, and sprof still writes its profile. A signal typed at the terminal already reaches the
// command (same foreground process group); one sent to sprof alone with kill(2) is forwarded
// to it through `pending_signal`.
//
// Attach and system-wide recordings own no process to forward to: any of these signals, from the
// terminal or from kill(2), stops the recording instead (`stop_requests`), and the profile is
// written as usual. A launched command that ignores the signal is stopped by the second one: the
// recording ends, the profile is written and sprof terminates the command (as perf does).
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
  // How many of the signals arrived, however sent.
  const std::atomic<int>& stop_requests() const;
  // The signal that arrived last (0 before any): the one that stopped a recording, which sprof
  // names and exits with (128 + it), as a shell would report it.
  int last_signal() const;
};

// `record --flight-recorder`: SIGUSR2 asks for the window to be written (perf record's
// --switch-output=signal). It is counted, never forwarded to a launched command, and handled
// from before the recording starts until sprof is done writing, since SIGUSR2's default action
// would end sprof and lose the recording.
class WindowRequestSignal {
 public:
  WindowRequestSignal();
  ~WindowRequestSignal();  // restores the default disposition
  WindowRequestSignal(const WindowRequestSignal&) = delete;
  WindowRequestSignal& operator=(const WindowRequestSignal&) = delete;

  // How many SIGUSR2 arrived.
  const std::atomic<int>& requests() const;
};

}  // namespace sprof::cli
