// recorder/src/drain_loop.hpp
//
// The reading loop shared by every kind of recording: poll the perf rings, drain them into the
// converter, and stop when the targets are gone, the user asked to stop (Ctrl-C in attach mode),
// or the recording's duration (-d) is over.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "perf/perf_event.hpp"
#include "sprof/core/result.hpp"
#include "sprof/recorder/session.hpp"

namespace sprof::recorder {

struct DrainLimits {
  // Stop once this count of the user's stop requests reaches `stop_at`.
  const std::atomic<int>* stop_requests = nullptr;
  int stop_at = 1;
  uint64_t deadline_ns = 0;  // CLOCK_MONOTONIC; 0: no deadline
  // The loop wakes at least this often to check on the targets and the limits.
  int max_poll_interval_ms = 50;
  // Called after every read round (e.g. to report progress); may be empty.
  std::function<void()> after_round;
  // A descriptor that becomes readable when the targets end (the command's pidfd), so the loop
  // wakes at once then rather than at its next interval; -1 for none.
  int exit_fd = -1;
};

// Called after every read round: true once the targets have ended (launch mode: the command was
// reaped). When empty, the targets end when every event hangs up, i.e. every sampled task and
// everything it created has exited (CPU-wide events never hang up).
using TargetsEnded = std::function<Result<bool>()>;

// Reads until a limit or the end of the targets; leaves the events enabled and the merger's
// last round unflushed (the caller disables and flushes).
Result<StopCause> drain_until(perf::PerfEvents& events, const sprof::perf::RecordSink& sink,
                              const DrainLimits& limits, const TargetsEnded& targets_ended);

// How long the next poll may sleep: up to `max_ms`, but not past the deadline (0: none).
int poll_timeout_ms(uint64_t now_ns, uint64_t deadline_ns, int max_ms);

}  // namespace sprof::recorder
