#include "sprof/perfdata/event_choice.hpp"

#include <linux/perf_event.h>

#include <optional>

#include "sprof/perf/event_attr.hpp"

namespace sprof::perfdata {

namespace {

using sprof::perf::EventRole;

bool is_software(const perf_event_attr& a, uint64_t config) {
  return a.type == PERF_TYPE_SOFTWARE && a.config == config;
}

bool is_dummy(const perf_event_attr& a) { return is_software(a, PERF_COUNT_SW_DUMMY); }

// A sample at every context switch: the live recorder's off-CPU event.
bool samples_every_switch(const perf_event_attr& a) {
  return is_software(a, PERF_COUNT_SW_CONTEXT_SWITCHES) && !a.freq && a.sample_period == 1;
}

}  // namespace

Result<ChosenEvents> choose_events(const std::vector<FileEvent>& events) {
  // In order of preference: a clock (what a live recording samples), any other event that
  // samples, a context-switches recording alone.
  const auto first = [&](auto&& accept) -> std::optional<size_t> {
    for (size_t i = 0; i < events.size(); ++i) {
      if (accept(events[i].attr)) return i;
    }
    return std::nullopt;
  };
  std::optional<size_t> sampling = first([](const perf_event_attr& a) {
    return sprof::perf::period_is_cpu_ns(a) ||
           (a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_CPU_CYCLES);
  });
  if (!sampling) {
    sampling =
        first([](const perf_event_attr& a) { return !is_dummy(a) && !samples_every_switch(a); });
  }
  if (!sampling) sampling = first([](const perf_event_attr& a) { return !is_dummy(a); });
  if (!sampling) {
    return fail(Errc::kUnsupported,
                "the file records no sampling event, only perf's side-band (dummy) events");
  }
  ChosenEvents chosen;
  chosen.file_index_to_event.resize(events.size());
  chosen.specs.push_back({events[*sampling].attr, EventRole::kSampling});
  chosen.file_index_to_event[*sampling] = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (i == *sampling) continue;
    const auto& a = events[i].attr;
    const EventRole role = samples_every_switch(a) ? EventRole::kContextSwitch : EventRole::kOther;
    chosen.file_index_to_event[i] = chosen.specs.size();
    chosen.specs.push_back({a, role});
  }
  return chosen;
}

}  // namespace sprof::perfdata
