// Writes one thread of a processed (version 42) profile: every table as an object of columns
// plus `length`, with the column sets of that version (profile.js at version 42 in the Firefox
// Profiler's history; later versions' upgraders drop or convert what they no longer use).
#include <string_view>

#include "processed_thread.hpp"
#include "thread_rows.hpp"

namespace sprof::profile::detail {

namespace {

template <typename T>
void column(JsonWriter& w, std::string_view name, const std::vector<T>& values) {
  w.key(name).begin_array();
  for (const T& v : values) w.value(v);
  w.end_array();
}

// A column of `count` nulls: fields this version requires that sprof never fills.
void null_column(JsonWriter& w, std::string_view name, size_t count) {
  w.key(name).begin_array();
  for (size_t i = 0; i < count; ++i) w.null();
  w.end_array();
}

template <typename T>
void constant_column(JsonWriter& w, std::string_view name, size_t count, T value) {
  w.key(name).begin_array();
  for (size_t i = 0; i < count; ++i) w.value(value);
  w.end_array();
}

void write_frame_table(JsonWriter& w, const ProcessedThread& t) {
  const size_t n = t.frame_address.size();
  w.key("frameTable").begin_object();
  column(w, "address", t.frame_address);
  column(w, "inlineDepth", t.frame_inline_depth);
  column(w, "category", t.frame_category);
  constant_column(w, "subcategory", n, 0);
  column(w, "func", t.frame_func);
  column(w, "nativeSymbol", t.frame_native_symbol);
  null_column(w, "innerWindowID", n);
  null_column(w, "implementation", n);
  column(w, "line", t.frame_line);
  null_column(w, "column", n);
  null_column(w, "optimizations", n);
  w.field("length", n);
  w.end_object();
}

void write_func_table(JsonWriter& w, const ProcessedThread& t) {
  const size_t n = t.func_name.size();
  w.key("funcTable").begin_object();
  column(w, "name", t.func_name);
  constant_column(w, "isJS", n, false);
  constant_column(w, "relevantForJS", n, false);
  column(w, "resource", t.func_resource);
  column(w, "fileName", t.func_file);
  null_column(w, "lineNumber", n);
  null_column(w, "columnNumber", n);
  w.field("length", n);
  w.end_object();
}

void write_resource_table(JsonWriter& w, const ProcessedThread& t) {
  const size_t n = t.resource_name.size();
  constexpr int kLibraryResource = 1;  // ResourceType.Library
  w.key("resourceTable").begin_object();
  w.field("length", n);
  column(w, "lib", t.resource_lib);
  column(w, "name", t.resource_name);
  null_column(w, "host", n);
  constant_column(w, "type", n, kLibraryResource);
  w.end_object();
}

void write_native_symbols(JsonWriter& w, const ProcessedThread& t) {
  w.key("nativeSymbols").begin_object();
  column(w, "libIndex", t.symbol_lib);
  column(w, "address", t.symbol_address);
  column(w, "name", t.symbol_name);
  column(w, "functionSize", t.symbol_size);
  w.field("length", t.symbol_lib.size());
  w.end_object();
}

void write_stack_table(JsonWriter& w, const ProcessedThread& t) {
  const size_t n = t.stack_frame.size();
  // Version 42 still stores each stack's category (its frame's; sprof frames always have one).
  w.key("stackTable").begin_object();
  column(w, "frame", t.stack_frame);
  column(w, "category", t.stack_category);
  constant_column(w, "subcategory", n, 0);
  column(w, "prefix", t.stack_prefix);
  w.field("length", n);
  w.end_object();
}

void write_samples(JsonWriter& w, const ProcessedThread& t) {
  w.key("samples").begin_object();
  column(w, "stack", t.sample_stack);
  column(w, "time", t.sample_time);
  w.key("weight").null();
  w.field("weightType", "samples");
  // An all-null column is dropped, as the front end drops it (no CPU graph rather than 100 %).
  bool any_cpu_delta = false;
  for (const auto& d : t.sample_cpu_delta) any_cpu_delta = any_cpu_delta || d.has_value();
  if (any_cpu_delta) column(w, "threadCPUDelta", t.sample_cpu_delta);
  w.field("length", t.sample_stack.size());
  w.end_object();
}

void write_markers(JsonWriter& w, const Thread& thread, const ProcessedThread& t) {
  const auto& markers = thread.markers();
  // Every marker string was interned while building, so `find` cannot miss.
  auto string_index = [&](std::string_view s) { return t.strings.find(s).value_or(0); };
  w.key("markers").begin_object();
  w.key("data").begin_array();
  for (uint32_t i : t.marker_order) write_marker_payload(w, markers[i], string_index);
  w.end_array();
  w.key("name").begin_array();
  for (uint32_t i : t.marker_order) w.value(string_index(markers[i].name));
  w.end_array();
  w.key("startTime").begin_array();
  for (uint32_t i : t.marker_order) w.value(marker_times(markers[i]).start);
  w.end_array();
  w.key("endTime").begin_array();
  for (uint32_t i : t.marker_order) w.value(marker_times(markers[i]).end);
  w.end_array();
  w.key("phase").begin_array();
  for (uint32_t i : t.marker_order) w.value(static_cast<unsigned>(markers[i].phase));
  w.end_array();
  w.key("category").begin_array();
  for (uint32_t i : t.marker_order) w.value(static_cast<unsigned>(markers[i].category));
  w.end_array();
  w.field("length", t.marker_order.size());
  w.end_object();
}

// The balanced table of version 42 (memoryAddress and threadId): the front end pairs frees with
// allocations by address, in row order.
void write_native_allocations(JsonWriter& w, const Thread& thread, const ProcessedThread& t) {
  const auto& allocations = thread.native_allocations();
  if (allocations.empty()) return;
  w.key("nativeAllocations").begin_object();
  w.key("time").begin_array();
  for (const NativeAllocation& a : allocations) w.value(a.time_ms);
  w.end_array();
  w.key("weight").begin_array();
  for (const NativeAllocation& a : allocations) w.value(a.bytes);
  w.end_array();
  w.field("weightType", "bytes");
  column(w, "stack", t.allocation_stack);
  w.key("memoryAddress").begin_array();
  for (const NativeAllocation& a : allocations) w.value(a.memory_address);
  w.end_array();
  w.key("threadId").begin_array();
  for (const NativeAllocation& a : allocations) w.value(a.thread_id);
  w.end_array();
  w.field("length", allocations.size());
  w.end_object();
}

}  // namespace

void write_processed_thread(JsonWriter& w, const Thread& thread, const Process& process,
                            const ProcessedThread& tables) {
  const ThreadProcess owner = thread_process(thread, process);
  w.begin_object();
  w.field("name", thread.name);
  w.field("processName", owner.name);
  w.field("processType", owner.type);
  // One time origin for every process, so nothing is shifted.
  w.field("processStartupTime", 0);
  w.key("processShutdownTime");
  w.value(process.shutdown_time_ms);
  w.field("registerTime", thread.register_time_ms);
  w.key("unregisterTime");
  w.value(thread.unregister_time_ms);
  w.key("pausedRanges").begin_array().end_array();
  w.field("pid", owner.pid).field("tid", thread.tid);
  write_samples(w, tables);
  write_markers(w, thread, tables);
  write_native_allocations(w, thread, tables);
  write_stack_table(w, tables);
  write_frame_table(w, tables);
  write_func_table(w, tables);
  write_resource_table(w, tables);
  write_native_symbols(w, tables);
  column(w, "stringArray", tables.strings.strings());
  w.end_object();
}

}  // namespace sprof::profile::detail
