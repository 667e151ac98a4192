#include "drain_loop.hpp"

#include "sprof/core/clock.hpp"

namespace sprof::recorder {

int poll_timeout_ms(uint64_t now_ns, uint64_t deadline_ns, int max_ms) {
  if (deadline_ns == 0) return max_ms;
  if (now_ns >= deadline_ns) return 0;
  // Round up so the loop does not spin with 0 ms polls just before the deadline.
  const uint64_t left_ms = (deadline_ns - now_ns + 999999) / 1000000;
  return left_ms < static_cast<uint64_t>(max_ms) ? static_cast<int>(left_ms) : max_ms;
}

Result<StopCause> drain_until(perf::PerfEvents& events, const sprof::perf::RecordSink& sink,
                              const DrainLimits& limits, const TargetsEnded& targets_ended) {
  for (;;) {
    if (limits.stop_requests && limits.stop_requests->load() >= limits.stop_at) {
      return StopCause::kStopRequested;
    }
    const uint64_t now = clock_ns(CLOCK_MONOTONIC);
    if (limits.deadline_ns != 0 && now >= limits.deadline_ns) return StopCause::kDuration;

    // A signal interrupts the poll (EINTR), so a stop request is seen at once. While the
    // allocation ring's backlog is read in bounded rounds, the poll does not wait.
    const int timeout_ms =
        events.behind() ? 0 : poll_timeout_ms(now, limits.deadline_ns, limits.max_poll_interval_ms);
    SPROF_TRY(perf::PollStatus polled, events.poll(timeout_ms, limits.exit_fd));
    events.read_available(sink);
    if (limits.after_round) limits.after_round();
    if (targets_ended) {
      SPROF_TRY(bool ended, targets_ended());
      if (ended) return StopCause::kTargetsEnded;
    } else if (polled.all_hung_up) {
      return StopCause::kTargetsEnded;
    }
  }
}

}  // namespace sprof::recorder
