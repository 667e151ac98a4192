// sprof/recorder/session.hpp
//
// A recording: launches the command stopped, opens one sampling event per CPU that follows it
// and everything it forks or execs (inherit + enable_on_exec), releases it, and drains the ring
// buffers into a profile until the command exits (or -d elapses; with --iteration-count the
// command is launched again, into the same profile). `attach` records processes that already
// run (-p) or the whole system (-a) instead, until they exit, -d elapses or Ctrl-C.
//
// With --flight-recorder only the last window of the recording is kept, and windows are handed
// out on request while recording goes on (RunControl::flight_window, docs/flight-recorder.md).
//
// With --heap the command also preloads libsprof-heap.so and its allocations are read from a
// shared ring with the perf rings (docs/heap.md, "Recording"); --no-cpu then samples nothing.
//
// Signals are the caller's business: `run` polls `RunControl::pending_signal` and forwards a
// nonzero value to the command, so Ctrl-C ends the command, not the recording, and the profile is
// still written. A command that ignores it is stopped by the second request (as perf does).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sprof/convert/exit_status.hpp"
#include "sprof/convert/stats.hpp"
#include "sprof/core/result.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/recorder/options.hpp"

namespace sprof::recorder {

// Why the recording ended.
enum class StopCause {
  kTargetsEnded,   // the command (every iteration) or every attached process exited
  kDuration,       // -d elapsed
  kStopRequested,  // SIGINT/SIGTERM/... to sprof in attach or system-wide mode, or a second one
                   // while a launched command keeps running
};

// What a recording has seen so far, for a live status line.
struct Progress {
  double elapsed_s = 0;
  uint64_t samples = 0;
  uint64_t lost = 0;  // records and samples the kernel dropped
  uint64_t processes = 0;
  uint64_t threads = 0;
};

struct Recording;

// The caller's hold on a running recording.
struct RunControl {
  // Signals to forward to a launched command (nonzero: send it, then reset to 0).
  std::atomic<int>* pending_signal = nullptr;
  // How many times the user asked to stop (Ctrl-C, SIGTERM). Attach and system-wide recordings,
  // which own no process, stop at the first. A launched command got the terminal's signal itself,
  // so the recording waits for it to end; at the second request it stops anyway and terminates
  // the command (SIGTERM, SIGKILL if it lingers), which evidently ignores the signal.
  const std::atomic<int>* stop_requests = nullptr;
  // Called on the recording thread about every `progress_interval` while recording.
  std::function<void(const Progress&)> on_progress;
  std::chrono::milliseconds progress_interval{500};
  // --rotate: when positive, every `rotate_interval` the profile of the interval that ended is
  // handed to `on_interval` (on the recording thread, which drains no ring meanwhile: it should
  // return soon) and a new profile starts; `run` returns the last, partial one.
  std::chrono::milliseconds rotate_interval{0};
  std::function<void(Recording&& interval)> on_interval;
  // --flight-recorder: when positive, only the last `flight_window` of the recording is kept
  // (convert/flight_window.hpp). Each time `window_requests` grows, the profile of the window
  // that ends then is handed to `on_interval` (same contract as --rotate's) and recording goes
  // on; `run` returns the window that ends with the recording.
  std::chrono::milliseconds flight_window{0};
  const std::atomic<int>* window_requests = nullptr;
  // The profile so far (with --flight-recorder: the window so far), handed out now and then on
  // the recording thread (same contract as on_interval): 1 s after the start, then at doubling
  // intervals (a flight recording: up to one window apart, for as long as it runs, a window
  // written on request counting as one; another recording: the last at about 127 s). The caller
  // reads the symbols of the modules and addresses it uses while the program runs, so that the
  // profile (or window) saved later is embedded without reading debug info first. Not with --rotate
  // (each interval is written anyway), --heap or
  // --per-cpu-threads (their tables are completed only when the recording ends).
  std::function<void(Recording&& so_far)> on_preview;
};

struct Recording {
  profile::Profile profile;
  convert::RecordingStats stats;
  convert::ExitStatus status;  // the command's; exit code 0 when sprof stopped the recording itself
  double duration_s = 0;
  uint64_t child_exit_monotonic_ns = 0;  // when the command ended (for latency measurements)
  StopCause stop_cause = StopCause::kTargetsEnded;
  // Launched commands still running when the recording stopped early (-d without
  // --kill-on-stop); sprof does not wait for them.
  std::vector<int> left_running;
  // A launched command sprof ended because the recording stopped (--kill-on-stop, or a second
  // stop request): its pid and how it ended (SIGTERM, or SIGKILL when it ignored that).
  int terminated_pid = 0;
  std::optional<convert::ExitStatus> terminated_status;
  int iterations = 1;  // launches recorded
  // When the profile starts (its time origin): the recording's start, or its interval's. A
  // flight-recorder window keeps the recording's origin; meta.profilingStartTime says where the
  // window starts.
  uint64_t interval_start_monotonic_ns = 0;
};

class Session {
 public:
  // Errc::kExecFailed with "cannot execute ..." when the command cannot be executed (the CLI exits
  // 127 then, and writes no profile).
  static Result<std::unique_ptr<Session>> launch(const RecordOptions& options);
  // Records running processes (options.attach_pids) or, with options.system_wide, every process
  // (CPU-wide events; the profile's top-level process is then pid 0, the kernel's idle task,
  // named "System"). Sampling starts here. Errc::kNotFound when a pid does not exist.
  static Result<std::unique_ptr<Session>> attach(const RecordOptions& options);
  // launch() or attach(), as the options ask, after check_record_options().
  static Result<std::unique_ptr<Session>> start(const RecordOptions& options);
  ~Session();

  // Records until the targets end, options.duration_s elapses or `control` says to stop (see
  // RunControl). In launch mode a first stop request also prevents further iterations.
  Result<Recording> run(const RunControl& control);
  int child_pid() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::recorder
