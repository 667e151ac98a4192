#include "gecko_thread_writer.hpp"

#include <algorithm>
#include <numeric>

#include "sprof/core/log.hpp"

namespace sprof::profile::detail {

namespace {

void write_string_table(JsonWriter& w, const Thread& thread) {
  w.key("stringTable").begin_array();
  for (const std::string& s : thread.strings()) w.value(s);
  w.end_array();
}

void write_frame_table(JsonWriter& w, const Thread& thread) {
  // All 8 keys: processing indexes these columns directly (contract §2.8).
  w.key("frameTable").begin_object();
  w.key("schema").begin_object();
  w.field("location", 0).field("relevantForJS", 1).field("innerWindowID", 2);
  w.field("implementation", 3).field("line", 4).field("column", 5);
  w.field("category", 6).field("subcategory", 7);
  w.end_object();
  w.key("data").begin_array();
  for (const FrameEntry& f : thread.frames()) {
    // Native frame: no JS relevance, window, implementation, line or column; subcategory 0 is
    // the category itself.
    w.begin_array().value(f.location).value(false).null().null().null().null();
    w.value(static_cast<unsigned>(f.category)).value(0).end_array();
  }
  w.end_array();
  w.end_object();
}

void write_stack_table(JsonWriter& w, const Thread& thread) {
  w.key("stackTable").begin_object();
  w.key("schema").begin_object().field("prefix", 0).field("frame", 1).end_object();
  w.key("data").begin_array();
  for (const StackEntry& s : thread.stacks()) {
    w.begin_array();
    w.value(s.prefix);
    w.value(s.frame).end_array();
  }
  w.end_array();
  w.end_object();
}

// Sample order: by time, with ties and already-sorted input kept in recording order. The front
// end bisects the time column, so it must be non-decreasing (contract §2.6).
std::vector<uint32_t> sample_order(const std::vector<Sample>& samples) {
  std::vector<uint32_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0U);
  const bool sorted = std::is_sorted(samples.begin(), samples.end(),
                                     [](const Sample& a, const Sample& b) {
                                       return a.time_ms < b.time_ms;
                                     });
  if (!sorted) {
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return samples[a].time_ms < samples[b].time_ms;
    });
  }
  return order;
}

void write_samples(JsonWriter& w, const Thread& thread) {
  // `eventDelay` must be in the schema or the load fails; its values are null (contract §2.6).
  w.key("samples").begin_object();
  w.key("schema").begin_object();
  w.field("stack", 0).field("time", 1).field("eventDelay", 2).field("threadCPUDelta", 3);
  w.end_object();
  w.key("data").begin_array();
  const std::vector<Sample>& samples = thread.samples();
  for (uint32_t i : sample_order(samples)) {
    const Sample& s = samples[i];
    w.begin_array();
    w.value(s.stack);
    w.value(s.time_ms).null();
    w.value(s.cpu_delta_ns);
    w.end_array();
  }
  w.end_array();
  w.end_object();
}

uint32_t string_index(const Thread& thread, std::string_view s) {
  // `Thread::add_marker` interned every marker string, so this lookup cannot miss.
  if (auto index = thread.find_string(s)) return *index;
  log::error("gecko writer: marker string was not interned");
  return 0;
}

void write_payload(JsonWriter& w, const Thread& thread, const Marker& m) {
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
            w.value(string_index(thread, v.text));
          } else {
            w.value(v);
          }
        },
        field.value);
  }
  w.end_object();
}

void write_marker_times(JsonWriter& w, const Marker& m) {
  // The phase decides which of start/end are present (contract §2.10); a marker with both null
  // would make the front end throw, so a missing required time falls back to the other one.
  const std::optional<double> any = m.start_ms ? m.start_ms : m.end_ms;
  const double start = m.start_ms.value_or(any.value_or(0));
  const double end = m.end_ms.value_or(any.value_or(0));
  switch (m.phase) {
    case MarkerPhase::kInstant:
    case MarkerPhase::kIntervalStart:
      w.value(start).null();
      break;
    case MarkerPhase::kInterval:
      w.value(start).value(std::max(start, end));
      break;
    case MarkerPhase::kIntervalEnd:
      w.null().value(end);
      break;
  }
}

void write_markers(JsonWriter& w, const Thread& thread) {
  w.key("markers").begin_object();
  w.key("schema").begin_object();
  w.field("name", 0).field("startTime", 1).field("endTime", 2).field("phase", 3);
  w.field("category", 4).field("data", 5);
  w.end_object();
  w.key("data").begin_array();
  for (const Marker& m : thread.markers()) {
    w.begin_array().value(string_index(thread, m.name));
    write_marker_times(w, m);
    w.value(static_cast<unsigned>(m.phase)).value(static_cast<unsigned>(m.category));
    write_payload(w, thread, m);
    w.end_array();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

void write_gecko_thread(JsonWriter& w, const Thread& thread, const Process& process) {
  w.begin_object();
  w.field("name", thread.name);
  // processName labels the process track; processType "default" pins it on top (contract §2.5).
  w.field("processName", thread.process_name.empty() ? process.name : thread.process_name);
  w.field("processType", thread.process_type.empty() ? process.process_type : thread.process_type);
  w.field("pid", thread.pid == 0 ? process.pid : thread.pid).field("tid", thread.tid);
  w.field("registerTime", thread.register_time_ms);
  w.key("unregisterTime");
  w.value(thread.unregister_time_ms);
  write_string_table(w, thread);
  write_frame_table(w, thread);
  write_stack_table(w, thread);
  write_samples(w, thread);
  write_markers(w, thread);
  w.end_object();
}

}  // namespace sprof::profile::detail
