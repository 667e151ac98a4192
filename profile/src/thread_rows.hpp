// Per-thread rules that both writers apply the same way: the order samples are written in, which
// marker times the phase keeps, and marker payloads with their string-index fields.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "sprof/core/json_writer.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile::detail {

// What a thread inherits from its process unless it overrides it.
struct ThreadProcess {
  std::string_view name;
  std::string_view type;
  int64_t pid = 0;
};
ThreadProcess thread_process(const Thread& thread, const Process& process);

// Sample indexes by time, ties and already-sorted input kept in recording order. The front end
// bisects the time column, so it must be non-decreasing. Empty when the samples are in time
// order already (nearly always): no index per sample to hold while writing a long recording.
std::vector<uint32_t> sample_order(const SampleList& samples);
// The `k`th sample's index in time order, given `sample_order`'s answer.
inline uint32_t sample_in_order(const std::vector<uint32_t>& order, size_t k) {
  return order.empty() ? static_cast<uint32_t>(k) : order[k];
}

// The times a marker row carries: the phase decides which are present (Instant and
// IntervalStart: start only; IntervalEnd: end only; Interval: both, end >= start). A required
// time the model lacks falls back to the other one, because a row with both null makes the front
// end throw.
struct MarkerTimes {
  std::optional<double> start;
  std::optional<double> end;
};
MarkerTimes marker_times(const Marker& m);

// `null`, or {"type": type, fields...}; `UniqueString` values are written as the index that
// `string_index` gives for their text.
void write_marker_payload(JsonWriter& w, const Marker& m,
                          const std::function<uint32_t(std::string_view)>& string_index);

}  // namespace sprof::profile::detail
