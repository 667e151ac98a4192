#include "gecko_thread_writer.hpp"

#include "sprof/core/log.hpp"
#include "thread_rows.hpp"

namespace sprof::profile::detail {

namespace {

void write_string_table(JsonWriter& w, const Thread& thread) {
  w.key("stringTable").begin_array();
  for (const std::string& s : thread.strings()) w.value(s);
  w.end_array();
}

void write_frame_table(JsonWriter& w, const Thread& thread) {
  // All 8 keys: processing indexes these columns directly (docs/firefox-profiler-format.md,
  // "frameTable and location strings").
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

void write_samples(JsonWriter& w, const Thread& thread) {
  // `eventDelay` must be in the schema or the load fails; its values are null
  // (docs/firefox-profiler-format.md, "samples").
  w.key("samples").begin_object();
  w.key("schema").begin_object();
  w.field("stack", 0).field("time", 1).field("eventDelay", 2).field("threadCPUDelta", 3);
  w.end_object();
  w.key("data").begin_array();
  const SampleList& samples = thread.samples();
  const std::vector<uint32_t> order = detail::sample_order(samples);
  for (size_t k = 0; k < samples.size(); ++k) {
    const Sample s = samples[detail::sample_in_order(order, k)];
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

void write_marker_schema(JsonWriter& w) {
  w.key("schema").begin_object();
  w.field("name", 0).field("startTime", 1).field("endTime", 2).field("phase", 3);
  w.field("category", 4).field("data", 5);
  w.end_object();
}

// One "Native allocation" marker row, formatted at once into `out`: `[name, time, null, phase,
// category, payload]` with the payload `{type, size, stack?, memoryAddress, threadId}`. A
// record-all profile has a row per allocation and per free, and going through the writer one
// value at a time was most of the time its write took.
//
// The payload's `stack` holds only what the front end reads of a marker stack: its samples'
// first row, whose `stack` indexes the enclosing thread's stack table, and `time` for a cause
// (docs/firefox-profiler-format.md, "native allocations"). The rest of a tiny thread's shape
// (name, register times, pid, tid, an empty marker table) was 270 of an allocation row's 410
// bytes.
void append_allocation_row(std::string& out, uint32_t name, const NativeAllocation& a) {
  out.push_back('[');
  append_json_integer(out, uint64_t{name});
  out.push_back(',');
  append_json_number(out, a.time_ms);
  out.append(",null,");
  append_json_integer(out, uint64_t{static_cast<unsigned>(MarkerPhase::kInstant)});
  out.push_back(',');
  append_json_integer(out, uint64_t{static_cast<unsigned>(Category::kOther)});
  out.append(",{\"type\":");
  append_json_string(out, kNativeAllocationMarker);
  out.append(",\"size\":");
  append_json_integer(out, a.bytes);
  if (a.stack) {
    out.append(",\"stack\":{\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[");
    append_json_integer(out, uint64_t{*a.stack});
    out.push_back(',');
    append_json_number(out, a.time_ms);
    out.append("]]}}");
  }
  out.append(",\"memoryAddress\":");
  append_json_integer(out, a.memory_address);
  out.append(",\"threadId\":");
  append_json_integer(out, a.thread_id);
  out.append("}]");
}

// Allocations are instant markers the front end moves into the thread's native-allocations
// table, in the order they are written (docs/firefox-profiler-format.md, "native allocations").
void write_native_allocation_markers(JsonWriter& w, const Thread& thread) {
  if (thread.native_allocations().empty()) return;
  const uint32_t name = string_index(thread, kNativeAllocationMarker);
  std::string row;
  for (const NativeAllocation& a : thread.native_allocations()) {
    row.clear();
    append_allocation_row(row, name, a);
    w.raw_value(row);
  }
}

void write_markers(JsonWriter& w, const Thread& thread) {
  w.key("markers").begin_object();
  write_marker_schema(w);
  w.key("data").begin_array();
  for (const Marker& m : thread.markers()) {
    const MarkerTimes times = marker_times(m);
    w.begin_array().value(string_index(thread, m.name));
    w.value(times.start).value(times.end);
    w.value(static_cast<unsigned>(m.phase)).value(static_cast<unsigned>(m.category));
    write_marker_payload(w, m, [&](std::string_view s) { return string_index(thread, s); });
    w.end_array();
  }
  write_native_allocation_markers(w, thread);
  w.end_array();
  w.end_object();
}

}  // namespace

void write_gecko_thread(JsonWriter& w, const Thread& thread, const Process& process) {
  w.begin_object();
  w.field("name", thread.name);
  // processName labels the process track; processType "default" pins it on top
  // (docs/firefox-profiler-format.md, "threads and tables").
  const ThreadProcess owner = thread_process(thread, process);
  w.field("processName", owner.name);
  w.field("processType", owner.type);
  w.field("pid", owner.pid).field("tid", thread.tid);
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
