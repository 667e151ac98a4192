#include "sprof/convert/flight_window.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace sprof::convert {

WindowTrim& WindowTrim::operator+=(const WindowTrim& o) {
  samples += o.samples;
  markers += o.markers;
  allocations += o.allocations;
  counter_samples += o.counter_samples;
  return *this;
}

WindowTrim trim_before(profile::Profile& profile, double start_ms) {
  WindowTrim dropped;
  for (profile::Process& process : profile.processes) {
    for (profile::Thread& thread : process.threads) {
      const profile::Thread::Dropped d = thread.drop_before(start_ms);
      dropped.samples += d.samples;
      dropped.markers += d.markers;
      dropped.allocations += d.allocations;
    }
    // Counter samples are changes since the previous one, so the first kept one's level is
    // relative to the window's start: the track shows what changed within the window.
    for (profile::Counter& counter : process.counters) {
      dropped.counter_samples += std::erase_if(
          counter.samples,
          [start_ms](const profile::CounterSample& s) { return s.time_ms < start_ms; });
    }
  }
  return dropped;
}

void drop_ended_before(profile::Profile& profile, double start_ms) {
  const auto ended_before = [start_ms](const std::optional<double>& end_ms) {
    return end_ms && *end_ms < start_ms;
  };
  for (profile::Process& process : profile.processes) {
    std::erase_if(process.threads, [&](const profile::Thread& t) {
      return ended_before(t.unregister_time_ms) && t.samples().empty() && t.markers().empty() &&
             t.native_allocations().empty();
    });
  }
  if (profile.processes.empty()) return;
  // The top-level process stays whatever it holds: it is the profile's root.
  const auto children = profile.processes.begin() + 1;
  profile.processes.erase(std::remove_if(children, profile.processes.end(),
                                         [&](const profile::Process& p) {
                                           return ended_before(p.shutdown_time_ms) &&
                                                  p.threads.empty();
                                         }),
                          profile.processes.end());
}

void describe_window(profile::Meta& meta, double window_ms, double start_ms, double end_ms,
                     const WindowTrim& dropped) {
  meta.profiling_start_ms = start_ms;
  meta.profiling_end_ms = end_ms;
  meta.extra.emplace_back("flightWindowMs", window_ms);
  meta.extra.emplace_back("flightStartMs", start_ms);
  meta.extra.emplace_back("flightEndMs", end_ms);
  meta.extra.emplace_back("flightDroppedSamples", static_cast<int64_t>(dropped.samples));
  meta.extra.emplace_back("flightDroppedMarkers", static_cast<int64_t>(dropped.markers));
  meta.extra.emplace_back("flightDroppedAllocations", static_cast<int64_t>(dropped.allocations));
  meta.extra.emplace_back("flightDroppedCounterSamples",
                          static_cast<int64_t>(dropped.counter_samples));
}

}  // namespace sprof::convert
