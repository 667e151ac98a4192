#include "sprof/profile/gecko_writer.hpp"

#include "gecko_libs.hpp"
#include "gecko_thread_writer.hpp"
#include "json_file.hpp"
#include "meta_writer.hpp"
#include "sprof/core/json_writer.hpp"

namespace sprof::profile {

namespace {

// The only Gecko version that runs no upgraders in the front end (docs/firefox-profiler-format.md,
// "Recognising the file").
constexpr int kGeckoVersion = 36;

// `GeckoProfileFullMeta`, for the top level (docs/firefox-profiler-format.md, "Gecko profile:
// meta").
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
  detail::write_shared_meta(w, meta);
  w.end_object();
}

// `GeckoProfileShortMeta` of a sub-process. The same startTime as the top level keeps a single
// time origin, so the front end shifts nothing (docs/firefox-profiler-format.md, "Several
// processes").
void write_short_meta(JsonWriter& w, const Meta& meta, const Process& process) {
  w.key("meta").begin_object();
  w.field("version", kGeckoVersion);
  w.field("startTime", meta.start_time_ms);
  w.key("shutdownTime");
  w.value(process.shutdown_time_ms);
  detail::write_categories(w, meta.categories);
  w.key("markerSchema").begin_array().end_array();  // all schemas live at the top level
  w.end_object();
}

void write_libs(JsonWriter& w, const std::vector<Library>& libs) {
  w.key("libs").begin_array();
  for (const Library& lib : detail::normalize_libs(libs)) {
    w.begin_object();
    w.field("start", lib.start).field("end", lib.end).field("offset", lib.offset);
    detail::write_lib_identity(w, lib);
    w.end_object();
  }
  w.end_array();
}

// Counters of one (sub)profile; the front end draws them on its GeckoMain thread's track.
void write_counters(JsonWriter& w, const std::vector<Counter>& counters) {
  w.key("counters").begin_array();
  for (const Counter& c : counters) {
    w.begin_object();
    w.field("name", c.name).field("category", c.category).field("description", c.description);
    w.key("samples").begin_object();
    w.key("schema")
        .begin_object()
        .field("time", 0)
        .field("count", 1)
        .field("number", 2)
        .end_object();
    w.key("data").begin_array();
    for (const CounterSample& s : c.samples) {
      w.begin_array().value(s.time_ms).value(s.count).value(s.number).end_array();
    }
    w.end_array();
    w.end_object();
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
  // Only JS frames use the source table, but the type requires it (docs/firefox-profiler-format.md,
  // "Gecko profile: top level").
  w.key("sources").begin_object();
  w.key("schema").begin_object();
  w.field("id", 0).field("filename", 1).field("startLine", 2).field("startColumn", 3);
  w.field("sourceMapURL", 4);
  w.end_object();
  w.key("data").begin_array().end_array();
  w.end_object();
  w.key("pages").begin_array().end_array();
  if (process && !process->counters.empty()) write_counters(w, process->counters);
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
  return detail::write_json_file(
      path, [&](const detail::ChunkSink& sink) { write_gecko_json(profile, sink); });
}

Result<uint64_t> write_gecko_file(const Profile& profile, ReplacingFile file) {
  return detail::write_json_file(
      std::move(file), [&](const detail::ChunkSink& sink) { write_gecko_json(profile, sink); });
}

}  // namespace sprof::profile
