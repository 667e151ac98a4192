#include "thread_rows.hpp"

#include <algorithm>
#include <numeric>
#include <type_traits>

namespace sprof::profile::detail {

ThreadProcess thread_process(const Thread& thread, const Process& process) {
  return {thread.process_name.empty() ? process.name : thread.process_name,
          thread.process_type.empty() ? process.process_type : thread.process_type,
          thread.pid == 0 ? process.pid : thread.pid};
}

std::vector<uint32_t> sample_order(const SampleList& samples) {
  bool sorted = true;
  double previous_ms = 0;
  for (size_t i = 0; i < samples.size() && sorted; ++i) {
    const double time_ms = samples[i].time_ms;
    sorted = i == 0 || !(time_ms < previous_ms);
    previous_ms = time_ms;
  }
  std::vector<uint32_t> order;
  if (!sorted) {
    // The times read once, in order: the samples may be in a spill file, where reading them in
    // the sort's order would read a block per comparison.
    std::vector<double> times;
    times.reserve(samples.size());
    for (const Sample& s : samples) times.push_back(s.time_ms);
    order.resize(samples.size());
    std::iota(order.begin(), order.end(), 0U);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return times[a] < times[b]; });
  }
  return order;
}

MarkerTimes marker_times(const Marker& m) {
  const std::optional<double> any = m.start_ms ? m.start_ms : m.end_ms;
  const double start = m.start_ms.value_or(any.value_or(0));
  const double end = m.end_ms.value_or(any.value_or(0));
  switch (m.phase) {
    case MarkerPhase::kInstant:
    case MarkerPhase::kIntervalStart: return {start, std::nullopt};
    case MarkerPhase::kInterval: return {start, std::max(start, end)};
    case MarkerPhase::kIntervalEnd: return {std::nullopt, end};
  }
  return {start, std::nullopt};
}

void write_marker_payload(JsonWriter& w, const Marker& m,
                          const std::function<uint32_t(std::string_view)>& string_index) {
  if (m.type.empty()) {
    w.null();
    return;
  }
  w.begin_object().field("type", m.type);
  for (const MarkerField& field : m.fields) {
    w.key(field.key);
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, UniqueString>) {
            w.value(string_index(v.text));
          } else {
            w.value(v);
          }
        },
        field.value);
  }
  w.end_object();
}

}  // namespace sprof::profile::detail
