#include "sprof/profile/gecko_writer.hpp"


#include "file_sink.hpp"
#include "gecko_libs.hpp"
#include "gecko_thread_writer.hpp"
#include "sprof/core/json_writer.hpp"

namespace sprof::profile {

namespace {

// The only Gecko version that runs no upgraders in the front end (contract §2.1).
constexpr int kGeckoVersion = 36;

void write_categories(JsonWriter& w, const std::vector<CategoryInfo>& categories) {
  w.key("categories").begin_array();
  for (const CategoryInfo& c : categories) {
    w.begin_object().field("name", c.name).field("color", c.color);
    w.key("subcategories").begin_array();
    for (const std::string& s : c.subcategories) w.value(s);
    if (c.subcategories.empty()) w.value("Other");  // the front end requires at least one
    w.end_array().end_object();
  }
  w.end_array();
}

void write_schema_field(JsonWriter& w, const MarkerSchemaField& f) {
  w.begin_object();
  if (f.key.empty()) {
    w.field("label", f.label).field("value", f.value);  // static field: schema description
  } else {
    w.field("key", f.key);
    if (!f.label.empty()) w.field("label", f.label);
    w.field("format", f.format);
    if (f.searchable) w.field("searchable", true);
  }
  w.end_object();
}

void write_marker_schema(JsonWriter& w, const std::vector<MarkerSchema>& schemas) {
  // The Gecko shape lists fields under `data`; `fields` (the processed name) fails the load.
  w.key("markerSchema").begin_array();
  for (const MarkerSchema& s : schemas) {
    w.begin_object().field("name", s.name);
    w.key("display").begin_array();
    for (const std::string& d : s.display) w.value(d);
    w.end_array();
    if (!s.tooltip_label.empty()) w.field("tooltipLabel", s.tooltip_label);
    if (!s.table_label.empty()) w.field("tableLabel", s.table_label);
    if (!s.chart_label.empty()) w.field("chartLabel", s.chart_label);
    w.key("data").begin_array();
    for (const MarkerSchemaField& f : s.data) write_schema_field(w, f);
    w.end_array().end_object();
  }
  w.end_array();
}

void write_extra(JsonWriter& w, const Meta& meta) {
  w.key("sprof").begin_object();
  for (const auto& [key, value] : meta.extra) {
    w.key(key);
    std::visit([&](const auto& v) { w.value(v); }, value);
  }
  w.end_object();
}

// `GeckoProfileFullMeta`, for the top level (contract §2.3).
void write_full_meta(JsonWriter& w, const Meta& meta, const Process* root) {
  w.key("meta").begin_object();
  w.field("version", kGeckoVersion);
  w.field("startTime", meta.start_time_ms);
  w.field("startTimeAsClockMonotonicNanosecondsSinceBoot", meta.start_time_monotonic_ns);
  if (meta.profiling_start_ms) w.field("profilingStartTime", *meta.profiling_start_ms);
  if (meta.profiling_end_ms) w.field("profilingEndTime", *meta.profiling_end_ms);
  w.key("shutdownTime");
  w.value(root ? root->shutdown_time_ms : std::nullopt);
  w.field("interval", meta.interval_ms);
  w.field("stackwalk", 1).field("debug", 0).field("gcpoison", 0).field("asyncstack", 0);
  w.field("processType", 0);
  w.field("product", meta.product);
  // "X11" is the front end's "Unix"; with no `toolkit`, `oscpu` is shown verbatim.
  w.field("oscpu", meta.oscpu).field("platform", "X11").field("abi", meta.abi);
  w.field("CPUName", meta.cpu_name);
  w.field("logicalCPUs", meta.logical_cpus).field("physicalCPUs", meta.physical_cpus);
  if (meta.has_cpu_deltas) {
    // Without it, `threadCPUDelta` is ignored (contract §2.3).
    w.key("sampleUnits").begin_object();
    w.field("time", "ms").field("eventDelay", "ms").field("threadCPUDelta", "ns");
    w.end_object();
  }
  write_categories(w, meta.categories);
  write_marker_schema(w, meta.marker_schema);
  write_extra(w, meta);
  w.end_object();
}

// `GeckoProfileShortMeta` of a sub-process. The same startTime as the top level keeps a single
// time origin, so the front end shifts nothing (contract §2.13).
void write_short_meta(JsonWriter& w, const Meta& meta, const Process& process) {
  w.key("meta").begin_object();
  w.field("version", kGeckoVersion);
  w.field("startTime", meta.start_time_ms);
  w.key("shutdownTime");
  w.value(process.shutdown_time_ms);
  write_categories(w, meta.categories);
  w.key("markerSchema").begin_array().end_array();  // all schemas live at the top level
  w.end_object();
}

void write_libs(JsonWriter& w, const std::vector<Library>& libs) {
  w.key("libs").begin_array();
  for (const Library& lib : detail::normalize_libs(libs)) {
    w.begin_object();
    w.field("start", lib.start).field("end", lib.end).field("offset", lib.offset);
    w.field("name", lib.name).field("path", lib.path);
    w.field("debugName", lib.debug_name).field("debugPath", lib.debug_path);
    w.field("breakpadId", lib.breakpad_id);
    w.key("codeId");
    if (lib.code_id.empty()) {
      w.null();
    } else {
      w.value(lib.code_id);
    }
    w.field("arch", lib.arch);
    w.end_object();
  }
  w.end_array();
}

// The parts every (sub)profile has besides `meta` and `processes`.
void write_process_body(JsonWriter& w, const Process* process) {
  static const std::vector<Library> kNoLibs;
  write_libs(w, process ? process->libs : kNoLibs);
  w.key("threads").begin_array();
  if (process) {
    for (const Thread& t : process->threads) detail::write_gecko_thread(w, t, *process);
  }
  w.end_array();
  w.key("pausedRanges").begin_array().end_array();
  // Only JS frames use the source table, but the type requires it (contract §2.2).
  w.key("sources").begin_object();
  w.key("schema").begin_object();
  w.field("id", 0).field("filename", 1).field("startLine", 2).field("startColumn", 3);
  w.field("sourceMapURL", 4);
  w.end_object();
  w.key("data").begin_array().end_array();
  w.end_object();
  w.key("pages").begin_array().end_array();
}

}  // namespace

void write_gecko_json(const Profile& profile, const std::function<void(std::string_view)>& sink) {
  JsonWriter w(sink);
  const Process* root = profile.processes.empty() ? nullptr : &profile.processes.front();
  w.begin_object();
  write_full_meta(w, profile.meta, root);
  write_process_body(w, root);
  // Every other process is flat here: nested `processes` in a sub-profile are ignored.
  w.key("processes").begin_array();
  for (size_t i = 1; i < profile.processes.size(); ++i) {
    w.begin_object();
    write_short_meta(w, profile.meta, profile.processes[i]);
    write_process_body(w, &profile.processes[i]);
    w.key("processes").begin_array().end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.flush();
}

std::string gecko_json_string(const Profile& profile) {
  std::string out;
  write_gecko_json(profile, [&](std::string_view chunk) { out.append(chunk); });
  return out;
}

Result<uint64_t> write_gecko_file(const Profile& profile, const std::string& path) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  SPROF_TRY(auto sink, detail::open_file_sink(path, gzip));
  write_gecko_json(profile, [&](std::string_view chunk) { sink->write(chunk); });
  // On failure nothing was written at `path` (an older profile there is kept) and the partial
  // temporary file is gone.
  auto written = sink->finish();
  if (!written) return std::move(written).error().with_context("writing profile");
  return written;
}

}  // namespace sprof::profile
